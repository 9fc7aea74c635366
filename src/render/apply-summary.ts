import { applyExitCode, countResults, describeMovedName, describeStale, INTERRUPTED_BEFORE_START } from '../apply/model.js';
import type { ApplyPhase, ApplyReport, ChangeResult, StaleObject, VerifyResult } from '../apply/model.js';
import { EVERY_KIND } from '../kinds/registry.js';
import { summarize, type Plan } from '../plan/model.js';
import { renderJsonOutput } from './json-output.js';
import { policyAnnotations, policyText } from './policy.js';
import { escapeControl } from './text.js';
import { withDefined } from '../with-defined.js';

/**
 * The end of `mftops apply` (pure): what was applied, failed and skipped per kind, where the
 * snapshot and the ledger are, and what verification found; or why nothing was written. Text
 * for people, JSON for the Action and scripts. Messages are already one line and redacted.
 */

/**
 * The question apply asks before a fresh plan's writes, naming what a "yes" does and where:
 * `Apply 3 changes (1 create, 2 update, 0 delete) to environment "prod"? Only 'yes' is accepted: `
 * (replaces counted when there are any; blocked changes are never written, so not counted).
 */
export function renderApprovalQuestion(plan: Plan): string {
  const c = summarize(plan.changes);
  const total = c.create + c.update + c.replace + c.delete;
  const parts = [`${c.create} create`, `${c.update} update`, ...(c.replace > 0 ? [`${c.replace} replace`] : []), `${c.delete} delete`];
  return `Apply ${count(total, 'change')} (${parts.join(', ')}) to environment "${text(plan.environment)}"? Only 'yes' is accepted: `;
}

/**
 * With `policyShown: false` (a saved plan, not printed by this run) the policy checks apply went
 * by come first, unless a deny refused it (the refusal names each violation).
 */
export function renderApplySummaryText(report: ApplyReport, options: { readonly policyShown: boolean } = { policyShown: true }): string {
  const lines: string[] = options.policyShown || report.outcome === 'refused' ? [] : policyText(report.policy).slice(1);
  switch (report.outcome) {
    case 'nothing':
      lines.push('Nothing to apply.');
      pushSkipped(lines, report.results);
      break;
    case 'refused':
      lines.push('Apply refused; nothing was written:');
      for (const p of report.problems) lines.push(`  - ${text(p)}`);
      break;
    case 'stale': {
      const names = report.movedNames ?? [];
      const moved = [
        ...(report.stale.length > 0 || names.length === 0 ? [count(report.stale.length, 'object')] : []),
        ...(names.length > 0 ? [count(names.length, 'name')] : []),
      ];
      lines.push(`The plan is stale; nothing was written: ${moved.join(' and ')} moved on the servers since the plan was made.`);
      for (const s of report.stale) lines.push(`  ${staleSymbol(s)} ${text(s.address)}: ${staleWords(s)}`);
      for (const m of names) lines.push(`  plan is stale: ${text(describeMovedName(m))}`);
      lines.push('Make a new plan (mftops plan --out FILE), review it, and apply that one.');
      break;
    }
    case 'no-snapshot':
      lines.push('Apply stopped before the first write: no verified snapshot.');
      for (const p of report.problems) lines.push(`  - ${text(p)}`);
      break;
    case 'applied':
    case 'interrupted':
      pushRun(lines, report);
      break;
    default: {
      const never: never = report.outcome;
      throw new Error(`unknown outcome ${String(never)}`);
    }
  }
  pushScheduler(lines, report);
  return `${lines.join('\n')}\n`;
}

/** `--pause-scheduler`: what became of the scheduler, last (a scheduler left stopped is what a reader must not miss). */
function pushScheduler(lines: string[], report: ApplyReport): void {
  const s = report.scheduler;
  if (s === undefined) return;
  lines.push(`${s.state === 'not-restarted' ? 'Scheduler NOT started again' : 'Scheduler'}: ${text(s.message)}`);
}

function pushRun(lines: string[], report: ApplyReport): void {
  const c = countResults(report.results);
  const head = report.outcome === 'interrupted' ? 'Apply interrupted' : applyExitCode(report) === 0 ? 'Apply complete' : 'Apply finished with errors';
  lines.push(`${head} for environment "${text(report.environment)}": ${c.ok} applied, ${c.failed} failed, ${c.skipped} skipped.`);
  if (report.outcome === 'interrupted' && report.results.length === 0) for (const p of report.problems) lines.push(`  ${text(p)}`);
  for (const kind of EVERY_KIND) {
    const of = report.results.filter((r) => r.kind === kind);
    if (of.length === 0) continue;
    const k = countResults(of);
    const parts = [`${k.ok} applied`, ...(k.failed > 0 ? [`${k.failed} failed`] : []), ...(k.skipped > 0 ? [`${k.skipped} skipped`] : [])];
    lines.push(`  ${kind}: ${parts.join(', ')}`);
  }
  const failed = report.results.filter((r) => r.status === 'failed');
  if (failed.length > 0) {
    lines.push('Failed:');
    for (const r of failed) lines.push(`  x ${text(r.address)} (${r.action}): ${text(r.error ?? 'failed')}`);
  }
  pushSkipped(lines, report.results);
  const s = report.stats;
  if (s.unknownOutcomes > 0) {
    lines.push(
      `Unknown outcomes: ${s.unknownOutcomes} write(s) got no clear answer; re-reading showed ${s.confirmedByReread} had taken effect, ${s.retriedAfterReread} were sent again.`,
    );
  }
  if (report.snapshot) lines.push(`Snapshot: ${text(report.snapshot.path)}`);
  if (report.ledger) lines.push(`Ledger:   ${text(report.ledger)}`);
  if (report.verification) pushVerification(lines, report.verification, c.ok);
}

function pushSkipped(lines: string[], results: readonly ChangeResult[]): void {
  const skipped = results.filter((r) => r.status === 'skipped');
  if (skipped.length === 0) return;
  const blocked = skipped.filter((r) => r.action === 'blocked');
  if (blocked.length > 0) {
    lines.push(`Blocked (${blocked.length}), a person must make these changes:`);
    for (const r of blocked) lines.push(`  ! ${text(r.address)}: ${text((r.error ?? '').replace(/^blocked: /, ''))}`);
  }
  // Changes an interrupt kept from starting: counted, not listed (a Ctrl-C in a large apply left
  // hundreds); `--format json` and the ledger name each one, and a new plan shows what remains.
  const interrupted = skipped.filter((r) => r.action !== 'blocked' && r.error === INTERRUPTED_BEFORE_START);
  if (interrupted.length > 0) {
    lines.push(
      `Not started (${interrupted.length}): interrupted before they began, not applied; mftops plan shows what remains (--format json and the ledger name each one).`,
    );
  }
  const other = skipped.filter((r) => r.action !== 'blocked' && r.error !== INTERRUPTED_BEFORE_START);
  if (other.length > 0) {
    lines.push(`Not started (${other.length}):`);
    for (const r of other) lines.push(`  - ${text(r.address)} (${r.action}): ${text(r.error ?? 'skipped')}`);
  }
}

function pushVerification(lines: string[], v: VerifyResult, applied: number): void {
  if (v.error !== undefined) {
    lines.push(`Not verified: ${text(v.error)}`);
    return;
  }
  switch (v.mode) {
    case 'skipped':
      lines.push(`Not verified: ${text(v.note ?? 'skipped')}`);
      return;
    case 'replan':
    case 'payloads': {
      if (v.note !== undefined) lines.push(`Note: ${text(v.note)}`);
      const how = v.mode === 'replan' ? 're-planned from the manifests' : 'read back and compared with what was sent';
      if (v.unconverged.length === 0) {
        lines.push(`Verified: ${count(applied, 'applied change')} ${how}, all in sync.`);
        return;
      }
      lines.push(`Not in sync after apply (${v.unconverged.length} of ${applied}, ${how}):`);
      for (const u of v.unconverged)
        lines.push(
          `  ${text(u.address)}: ${u.action === 'missing' ? 'missing' : `still to ${u.action}`}${u.reason !== undefined ? ` (${text(u.reason)})` : ''}`,
        );
      return;
    }
    default: {
      const never: never = v.mode;
      throw new Error(`unknown verification mode ${String(never)}`);
    }
  }
}

/**
 * `apply --format github`: an annotation per policy violation the report went by (unless the plan
 * made now was already printed as `plan --format github` prints it, annotations included), then
 * the text report.
 */
export function renderApplySummaryGithub(report: ApplyReport, options: { readonly policyShown: boolean }): string {
  const annotations = options.policyShown ? [] : policyAnnotations(report.policy).map((l) => `${l}\n`);
  return `${annotations.join('')}${renderApplySummaryText(report, options)}`;
}

/** The report as the `mftops.apply` document, with its counts and exit code. */
export function renderApplySummaryJson(report: ApplyReport): string {
  const counts = countResults(report.results);
  const perKind = Object.fromEntries(
    EVERY_KIND.flatMap((k) => {
      const of = report.results.filter((r) => r.kind === k);
      return of.length > 0 ? [[k, countResults(of)]] : [];
    }),
  );
  return renderJsonOutput('mftops.apply', {
    environment: report.environment,
    outcome: report.outcome,
    exitCode: applyExitCode(report),
    counts,
    perKind,
    ...(report.problems.length > 0 ? { problems: report.problems } : {}),
    ...(report.stale.length > 0 ? { stale: report.stale } : {}),
    ...(report.movedNames !== undefined && report.movedNames.length > 0
      ? { movedNames: report.movedNames.map((m) => ({ ...m, message: describeMovedName(m) })) }
      : {}),
    results: report.results,
    ...(report.snapshot ? { snapshot: report.snapshot } : {}),
    ...(report.ledger !== undefined ? { ledger: report.ledger } : {}),
    ...(report.verification ? { verification: report.verification } : {}),
    ...(report.policy ? { policy: report.policy } : {}),
    ...withDefined({ changeWindow: report.changeWindow }),
    ...withDefined({ scheduler: report.scheduler }),
    stats: report.stats,
  });
}

function staleSymbol(s: StaleObject): string {
  switch (s.how) {
    case 'changed':
      return '~';
    case 'appeared':
      return '+';
    case 'gone':
      return '-';
    default: {
      const never: never = s.how;
      throw new Error(`unknown stale kind ${String(never)}`);
    }
  }
}

function staleWords(s: StaleObject): string {
  const words = describeStale(s.how);
  return s.detail !== undefined ? `${words} (${text(s.detail)})` : words;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** Server text in a terminal: no control characters. */
function text(s: string): string {
  return escapeControl(s);
}

/** The line an apply phase starts with (shown while it runs). */
export function renderApplyPhase(phase: ApplyPhase, writes: number, parallelism: number): string {
  switch (phase) {
    case 'stale-check':
      return 'Checking that nothing the plan touches changed since it was made...';
    case 'snapshot':
      return 'Saving a snapshot before the first write...';
    case 'write':
      return `Applying ${writes} change${writes === 1 ? '' : 's'} (${parallelism} at a time)...`;
    case 'verify':
      return 'Verifying...';
    default: {
      const never: never = phase;
      throw new Error(`unknown phase ${String(never)}`);
    }
  }
}

/** The line of one change once it is done (shown while the apply runs). */
export function renderChangeResultLine(r: ChangeResult): string {
  switch (r.status) {
    case 'ok':
      return `  ok      ${r.address} (${r.action})${r.unknownOutcomes > 0 ? ` after ${r.unknownOutcomes} unknown outcome(s), re-read` : ''}`;
    case 'failed':
      return `  failed  ${r.address} (${r.action}): ${r.error ?? ''}`;
    case 'skipped':
      return `  skipped ${r.address} (${r.action}): ${r.error ?? ''}`;
    default: {
      const never: never = r.status;
      throw new Error(`unknown status ${String(never)}`);
    }
  }
}
