import type { EnvironmentSettings, ServiceName } from '../config/model.js';
import type { Change, Plan } from '../plan/model.js';
import { isWriteAction } from './model.js';

/**
 * The checks apply makes before reading or writing anything (pure). Each problem is one line
 * that names what is wrong and what to do.
 */

/** What apply is allowed to do, from the command line. */
export interface ApplyPermissions {
  readonly allowDelete: boolean;
  readonly allowReplace: boolean;
  /** A plan with more `delete` changes than this is refused. */
  readonly maxDeletes: number;
}

export const DEFAULT_MAX_DELETES = 10;

/**
 * A saved plan must be for this environment and these servers: a plan reviewed for staging must
 * not reach production. Server URLs compare without a trailing slash and without regard to the
 * case of scheme and host; the account may differ (plans are often read with a read-only account).
 */
export function checkPlanTarget(plan: Plan, env: EnvironmentSettings): string[] {
  const problems: string[] = [];
  if (plan.environment !== env.name) {
    problems.push(
      `the plan was made for environment "${plan.environment}", not "${env.name}": apply it with --env ${plan.environment}, or make a plan for ${env.name}`,
    );
  }
  const services: ServiceName[] = ['automation', 'transfer'];
  for (const service of services) {
    const planned = plan.servers[service];
    const configured = env[service];
    const touched = plan.changes.some((c) => c.service === service && isWriteAction(c.action));
    if (planned && configured && sameUrl(planned.url, configured.url)) continue;
    if (planned && configured) {
      problems.push(`the plan was made against the ${service} server ${planned.url}, but environment "${env.name}" uses ${configured.url}`);
    } else if (planned && touched) {
      problems.push(`the plan changes the ${service} server ${planned.url}, but environment "${env.name}" has no ${service} service`);
    } else if (!planned && touched) {
      problems.push(`the plan changes ${service} objects but does not say which ${service} server it was made against`);
    }
  }
  return problems;
}

function sameUrl(a: string, b: string): boolean {
  const norm = (u: string): string => {
    try {
      const url = new URL(u);
      return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
    } catch {
      return u.replace(/\/+$/, '');
    }
  };
  return norm(a) === norm(b);
}

/**
 * Destructive changes need their flag; a deletion larger than `maxDeletes` is stopped before it
 * starts. Everything is refused at once (never a partial apply that skips the deletes).
 */
export function checkPermissions(plan: Plan, permissions: ApplyPermissions): string[] {
  const problems: string[] = [];
  const deletes = plan.changes.filter((c) => c.action === 'delete');
  const replaces = plan.changes.filter((c) => c.action === 'replace');
  if (deletes.length > 0 && !permissions.allowDelete) {
    problems.push(`the plan deletes ${count(deletes.length, 'object')} (${listAddresses(deletes)}): pass --allow-delete to apply it`);
  }
  if (replaces.length > 0 && !permissions.allowReplace) {
    problems.push(
      `the plan replaces ${count(replaces.length, 'object')} (deleted and created again: ${listAddresses(replaces)}): pass --allow-replace to apply it`,
    );
  }
  if (deletes.length > permissions.maxDeletes) {
    problems.push(`the plan deletes ${deletes.length} objects, more than --max-deletes ${permissions.maxDeletes}: check the plan, then raise --max-deletes`);
  }
  return problems;
}

/** The changes apply sends requests for, in plan order. */
export function writeChanges(plan: Plan): Change[] {
  return plan.changes.filter((c) => isWriteAction(c.action));
}

/** Changes the plan marks blocked: skipped, listed, never sent. */
export function blockedChanges(plan: Plan): Change[] {
  return plan.changes.filter((c) => c.action === 'blocked');
}

const SHOWN = 5;

function listAddresses(changes: readonly Change[]): string {
  const shown = changes.slice(0, SHOWN).map((c) => c.address);
  return changes.length > SHOWN ? `${shown.join(', ')} and ${changes.length - SHOWN} more` : shown.join(', ');
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
