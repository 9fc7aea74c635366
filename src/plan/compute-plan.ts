import type { PrunableKind, Scope } from '../config/model.js';
import { folderKey } from '../live/model.js';
import type { LiveState } from '../live/model.js';
import { parentPath } from '../folder-path.js';
import { compareText } from '../order.js';
import { hasErrors } from '../manifest/diagnostics.js';
import type { ValueVocabulary } from '../manifest/value-words.js';
import type { AccessBasis, KindDefinition, PlanContext, ResourceKind } from '../kinds/kind.js';
import { forEachKind, kindOf } from '../kinds/registry.js';
import { withDefined } from '../with-defined.js';
import type { DesiredState } from './desired.js';
import { createPlanDiagnostic, createPlanWarning, didYouMean } from './diagnostics.js';
import type { PlanDiagnostic } from './diagnostics.js';
import { assemblePlan } from './assemble-plan.js';
import { planAccessChanges } from './access-changes.js';
import type { UserGroupAccess } from './access-changes.js';
import { establishesFolderPath, formatAddress, isWriteAction, parseAddress } from './model.js';
import type { AccessReport, Change, Plan, PlanHeader, PruneOff, ResolvedName } from './model.js';

export { sourceRef } from '../kinds/source.js';

export interface ComputePlanInput {
  readonly desired: DesiredState;
  readonly live: LiveState;
  /** Environment name from mftops.yaml. */
  readonly environment: string;
  readonly servers: Plan['servers'];
  readonly manifestDigest: string;
  /** The variables the manifests used (ManifestSet.variables): the plan records them. */
  readonly variables?: Plan['variables'];
  readonly scope: Scope;
  readonly prune: readonly PrunableKind[];
  /** Why the environment's `prune` is off for this run (`prune` is then empty): the plan says so. */
  readonly pruneOff?: PruneOff;
  /** `Kind/name` addresses: plan only these (and the parent folders they need). */
  readonly targets?: readonly string[];
  readonly toolVersion: string;
  readonly now: Date;
  /** Manifest paths in `source` are shown relative to this folder. Default: as loaded (absolute). */
  readonly cwd?: string;
  /** The words of the task fields, from the task schema (`getValueVocabulary('Task')`): field changes carry them. */
  readonly taskVocabulary: ValueVocabulary;
  /** `--rotate-passwords`: existing users are sent their manifest's password again. */
  readonly rotatePasswords?: boolean;
}

/**
 * Desired state + live state → the plan (pure). Every managed object gets a change, no-ops
 * included; unmanaged objects in scope get a `delete` for the kinds listed in `prune`. Order:
 * folders (parents before children), resource-group ACLs, tasks; then deletes in the reverse
 * order (tasks, ACLs, folders children first). Problems that only the live state reveals (a
 * missing folder, an unknown `--target`) are diagnostics; the objects concerned are left out and
 * the plan is `errored`, as it is when `desired` left manifests out.
 */
/**
 * The plan, its diagnostics, and `accessWith`: the access report again with user-group members
 * read after the plan (only a plan that changes an ACL needs them), without planning again.
 */
export interface ComputedPlan {
  readonly plan: Plan;
  readonly diagnostics: PlanDiagnostic[];
  readonly accessWith: (userGroups: UserGroupAccess) => AccessReport | undefined;
}

export function computePlan(input: ComputePlanInput): ComputedPlan {
  const diagnostics: PlanDiagnostic[] = [];
  /** What each permission change starts from and ends with, for the access report. */
  const bases = new Map<string, AccessBasis>();
  const items: Ordered[] = [];
  let sequence = 0;
  const contextOf = <K extends ResourceKind>(definition: KindDefinition<K>): PlanContext<K> => ({
    desired: input.desired.byKind[definition.kind],
    skipped: input.desired.skipped,
    live: input.live,
    scope: input.scope,
    cwd: input.cwd,
    taskVocabulary: input.taskVocabulary,
    rotatePasswords: input.rotatePasswords === true,
    serverAccounts: Object.fromEntries(Object.entries(input.servers).map(([service, identity]) => [service, identity?.username])),
    diagnostics,
    bases,
    add: (change, depth = 0) => items.push({ change, rank: definition.rank, depth, seq: sequence++ }),
  });
  // Every kind's managed objects, then the unmanaged objects in scope of the kinds `prune` lists.
  forEachKind((definition) => definition.plan(contextOf(definition)));
  forEachKind((definition) => {
    if (input.prune.includes(definition.kind)) definition.prune(contextOf(definition));
  });

  // ------------------------------------------------------------------------- targets, order
  let selected = items;
  if (input.targets && input.targets.length > 0) selected = selectTargets(items, input.targets, input.desired, diagnostics);
  const changes = withResolvedNames(orderChanges(selected), input.desired);
  // Manifests whose references did not resolve were reported (and left out) by resolveDesired.
  const errored = hasErrors(diagnostics) || input.desired.skipped.length > 0;
  const header: PlanHeader = {
    toolVersion: input.toolVersion,
    createdAt: input.now.toISOString(),
    environment: input.environment,
    servers: input.servers,
    manifestDigest: input.manifestDigest,
    ...withDefined({
      variables: input.variables !== undefined && Object.keys(input.variables).length > 0 ? input.variables : undefined,
      targets: input.targets && input.targets.length > 0 ? [...input.targets] : undefined,
      pruneOff: input.pruneOff,
    }),
  };
  const automation = input.live.automation;
  const userGroups = automation?.userGroupMembers ? { members: automation.userGroupMembers, acls: automation.acls ?? new Map() } : undefined;
  const accessWith = accessReporter(changes, bases, input.live.transfer);
  return { plan: assemblePlan(header, changes, errored, accessWith(userGroups)), diagnostics, accessWith };
}

/**
 * The access report of these changes, made again with other user-group members. It keeps only
 * what `planAccessChanges` looks at (the changes that are neither no-op nor blocked, and their
 * bases): the caller holds it as long as the plan, and the bases of every unchanged folder and
 * the planner's working lists were 0.5 KB per object of a 10,000-object plan.
 */
function accessReporter(
  changes: readonly Change[],
  bases: ReadonlyMap<string, AccessBasis>,
  transfer: ComputePlanInput['live']['transfer'],
): (known?: UserGroupAccess) => AccessReport | undefined {
  const acting = changes.filter((c) => c.action !== 'no-op' && c.action !== 'blocked');
  const kept = new Map<string, AccessBasis>();
  for (const c of acting) {
    const basis = bases.get(c.address);
    if (basis !== undefined) kept.set(c.address, basis);
  }
  return (known) => planAccessChanges(acting, kept, transfer, known);
}

/** Each write change with the names its desired object resolved (`Change.resolved`), for apply to check again. */
function withResolvedNames(changes: readonly Change[], desired: DesiredState): Change[] {
  const byAddress = new Map<string, readonly ResolvedName[]>();
  forEachKind((definition) => {
    for (const object of desired.byKind[definition.kind]) byAddress.set(formatAddress(definition.kind, definition.nameOf(object)), object.resolved);
  });
  return changes.map((c) => {
    const resolved = isWriteAction(c.action) ? byAddress.get(c.address) : undefined;
    return resolved !== undefined && resolved.length > 0 ? { ...c, resolved } : c;
  });
}

interface Ordered {
  readonly change: Change;
  /** The kind's rank (`KindDefinition.rank`): creates and updates by it, deletes in reverse. */
  readonly rank: number;
  /** Folder path depth: parents first (deletes: children first). */
  readonly depth: number;
  readonly seq: number;
}

function orderChanges(items: readonly Ordered[]): Change[] {
  const isDelete = (o: Ordered) => o.change.action === 'delete';
  const writes = items.filter((o) => !isDelete(o)).sort((a, b) => a.rank - b.rank || a.depth - b.depth || a.seq - b.seq);
  const deletes = items.filter(isDelete).sort((a, b) => b.rank - a.rank || b.depth - a.depth || compareText(a.change.name, b.change.name));
  return [...writes, ...deletes].map((o) => o.change);
}

// ----------------------------------------------------------------------------------- targets

/**
 * The changes `--target` names, plus the creates of parent folders a targeted folder create
 * needs. Addresses compare without regard to case (both servers fold case); an ACL answers to
 * its label and to `resourceGroup/userGroup`. A target that names nothing is a warning (as in
 * Terraform: the plan is limited to the others, or to nothing, and writes nothing for it); one
 * that is not an address at all (`Kind/name`) is an error.
 */
function selectTargets(items: readonly Ordered[], targets: readonly string[], desired: DesiredState, diagnostics: PlanDiagnostic[]): Ordered[] {
  const aliases = (c: Change): string[] => {
    const list = [c.address, ...kindOf(c.kind).aliasesOf(c)];
    return list.map((a) => a.toLowerCase());
  };
  const known = new Set<string>();
  for (const o of items) for (const a of aliases(o.change)) known.add(a);
  for (const m of desired.skipped) known.add(formatAddress(m.kind, m.name).toLowerCase());

  const wanted = new Set<string>();
  for (const t of targets) {
    const parsed = parseAddress(t.trim());
    const norm = parsed ? formatAddress(parsed.kind, parsed.name).toLowerCase() : undefined;
    if (norm === undefined || !known.has(norm)) {
      const candidates = items.map((o) => o.change.address);
      const summary = `--target names nothing in this plan${didYouMean(t, candidates)}`;
      diagnostics.push(
        parsed
          ? createPlanWarning('MF409', undefined, summary, { address: t.trim() })
          : createPlanDiagnostic('MF409', undefined, summary, {
              hint: 'an address is Kind/name, e.g. Task/Payroll to bank or FolderPermissions/Finance/Payroll',
              address: t.trim(),
            }),
      );
      continue;
    }
    wanted.add(norm);
  }
  const chosen = new Set(items.filter((o) => aliases(o.change).some((a) => wanted.has(a))));
  // A new or renamed folder needs its parent: include the parents' creates and renames, transitively.
  const makers = new Map(items.filter((o) => establishesFolderPath(o.change)).map((o) => [folderKey(o.change.name), o]));
  for (const o of [...chosen]) {
    if (!establishesFolderPath(o.change)) continue;
    for (let p = parentPath(o.change.name); p !== undefined; p = parentPath(p)) {
      const parent = makers.get(folderKey(p));
      if (!parent) break;
      chosen.add(parent);
    }
  }
  return items.filter((o) => chosen.has(o));
}
