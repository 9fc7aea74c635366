import type { TransferStepChecks, TransferStepProblem } from '../plan/model.js';
import { formatCount } from './text.js';

// The cross-server checks in words, shared by the plan and drift renderers (text and markdown).

/** `Cross-server checks: 6 task steps on transfer hosts checked, 2 problems.` */
export function transferChecksHeadline(checks: TransferStepChecks): string {
  const n = checks.problems.length;
  const problems = n === 0 ? 'no problems' : `${formatCount(n)} ${n === 1 ? 'problem' : 'problems'}`;
  return `Cross-server checks: ${formatCount(checks.checked)} task ${checks.checked === 1 ? 'step' : 'steps'} on transfer hosts checked, ${problems}.`;
}

/** `Task/x step 2 (Destination) on host xfer`: which step, as the problem lines start. */
export function transferStepLabel(p: TransferStepProblem): string {
  return `${p.address} step ${p.step + 1} (${p.stepKind}) on host ${p.host}`;
}

/** What is wrong, in a clause: `account automation-svc lacks writeFiles on /Finance/Payroll`. */
export function transferProblemText(p: TransferStepProblem): string {
  const missing = (p.missing ?? []).join(', ');
  switch (p.problem) {
    case 'missing-folder':
      return `folder ${p.path} does not exist on the transfer server, and this plan does not create it`;
    case 'unknown-account':
      return p.account === undefined
        ? `no account to check (the host has no DefUsername, the step no Username); the step needs ${missing} on ${p.path}`
        : `account ${p.account} is not a user of the transfer server; the step needs ${missing} on ${p.path}`;
    case 'missing-rights':
      return `account ${p.account ?? '(none)'} lacks ${missing} on ${p.path}`;
    default: {
      const never: never = p.problem;
      throw new Error(`unknown transfer step problem ${String(never)}`);
    }
  }
}

/** `FILE:LINE:COL` of the step's `Path`, when known. */
export function transferProblemPlace(p: TransferStepProblem): string | undefined {
  return p.source === undefined ? undefined : `${p.source.file}:${p.source.line}:${p.source.col}`;
}

/** What the checks could not look at, as sentences. */
export function transferCheckNotes(checks: TransferStepChecks): string[] {
  const notes: string[] = [];
  if (checks.rightsUnchecked === 'users-unreadable') notes.push("The accounts' rights were not checked: the transfer account may not list users.");
  if (checks.groupsUncounted === 'membership-unreadable')
    notes.push('The members of some groups could not be read from the transfer server: an entry of such a group may grant what a step above lacks.');
  return notes;
}
