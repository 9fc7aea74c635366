import { scheduleChanges } from './execution-order.js';
import { isApplyable, summarize } from './model.js';
import type { AccessReport, Change, Plan, PlanHeader } from './model.js';

/**
 * The plan of these changes, given in plan order (dependencies first, deletes last): the
 * execution order of the write changes (`wave`, `needs`), `applyable` and the counts follow from
 * them. For the planner, and for readers that keep a part of a plan, as drift does.
 */
export function assemblePlan(header: PlanHeader, changes: readonly Change[], errored: boolean, access?: AccessReport): Plan {
  const { toolVersion, createdAt, environment, servers, manifestDigest, variables, targets, pruneOff, transferChecks } = header;
  const scheduled = scheduleChanges(changes);
  return {
    toolVersion,
    createdAt,
    environment,
    servers,
    manifestDigest,
    ...(variables !== undefined ? { variables } : {}),
    ...(targets !== undefined ? { targets } : {}),
    ...(pruneOff !== undefined ? { pruneOff } : {}),
    errored,
    applyable: isApplyable(errored, scheduled),
    changes: scheduled,
    summary: summarize(scheduled),
    ...(access !== undefined ? { access } : {}),
    ...(transferChecks !== undefined ? { transferChecks } : {}),
  };
}
