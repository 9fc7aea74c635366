import { summarize } from '../plan/model.js';
import type { Action, Change, Plan, TransferStepChecks } from '../plan/model.js';
import { transferCheckNotes, transferChecksHeadline, transferProblemPlace, transferProblemText, transferStepLabel } from './transfer-checks.js';
import {
  actionPhrase,
  describeEntryPermissions,
  describeScheduleChange,
  entrySymbol,
  escapeControl,
  formatCount,
  LISTED_ACTIONS,
  NO_CHANGES,
  planSentence,
  principalLabel,
  pruneOffSentence,
  removedLines,
  scheduleText,
  symbolOf,
  viewField,
  variablesSentence,
  fieldNote,
  originNote,
} from './plan-common.js';
import type { FieldView } from './plan-common.js';
import { describeReason } from '../resources/reasons.js';
import { accessCountPhrase, renderAccessText } from './access.js';
import { policyText } from './policy.js';
import { calendarTextLines, changeWindowSentence } from './plan-calendar.js';

export interface PlanTextOptions {
  /** ANSI colour; the caller decides (TTY, NO_COLOR, --no-color). */
  readonly color: boolean;
}

/**
 * The terminal plan, Terraform-like: one header line per changed object (`+ ~ -/+ - !`), its field
 * differences indented under it, then `Plan: …` counts. No-ops are counted, never listed.
 */
export function renderPlanText(plan: Plan, options: PlanTextOptions): string {
  const paint = painter(options.color);
  const summary = summarize(plan.changes);
  const listed = plan.changes.filter((c) => c.action !== 'no-op');
  const lines = [
    `mftops plan for environment ${quote(plan.environment)}: ${formatCount(plan.changes.length)} ${plural(plan.changes.length, 'object')} compared, ${formatCount(summary['no-op'])} unchanged.`,
  ];
  if (plan.variables !== undefined) lines.push(variablesSentence(plan.variables));
  if (plan.targets !== undefined && plan.targets.length > 0) lines.push(`Limited to --target ${plan.targets.map(quote).join(', ')}.`);
  if (plan.pruneOff !== undefined) lines.push(pruneOffSentence(plan.pruneOff));
  lines.push(...verdictText(plan, listed, paint));
  lines.push(...windowText(plan));
  lines.push(...policyText(plan.policy));
  if (listed.length === 0) {
    lines.push('', NO_CHANGES, ...transferChecksText(plan.transferChecks));
    return `${lines.join('\n')}\n`;
  }
  const used = LISTED_ACTIONS.filter((a) => summary[a] > 0);
  lines.push(`Symbols: ${used.map((a) => `${paint.action(a, symbolOf(a))} ${a}`).join(', ')}`);
  if (plan.access !== undefined) lines.push('', ...renderAccessText(plan.access));
  for (const change of listed) lines.push('', ...renderChange(change, paint));
  lines.push(
    '',
    paint.bold(`${planSentence(summary)}${plan.access === undefined ? '' : ` ${accessCountPhrase(plan.access)}.`}`),
    ...transferChecksText(plan.transferChecks),
    ...calendarTextLines(plan.calendar),
  );
  return `${lines.join('\n')}\n`;
}

/** Whether apply would be refused now by the change windows (issue 28); nothing when none are set. */
function windowText(plan: Plan): string[] {
  const sentence = changeWindowSentence(plan.calendar);
  return sentence === undefined ? [] : ['', sentence];
}

/**
 * What stands in the way of applying the plan, before anything else: refused by policy,
 * incomplete, blocked changes, and the deletes and replaces apply needs a flag for, each named.
 * Nothing when the plan can be applied as it is.
 */
function verdictText(plan: Plan, listed: readonly Change[], paint: Painter): string[] {
  const lines: string[] = [];
  const denies = (plan.policy?.violations ?? []).filter((v) => v.severity === 'deny').length;
  if (denies > 0)
    lines.push(`Refused by policy: ${formatCount(denies)} deny ${plural(denies, 'violation')} (below); the plan is not saved and cannot be applied.`);
  if (plan.errored) lines.push('Incomplete: errors left objects out of this plan; it cannot be saved or applied.');
  const blocked = listed.filter((c) => c.action === 'blocked');
  if (blocked.length > 0)
    lines.push(
      `Blocked: ${formatCount(blocked.length)} ${plural(blocked.length, 'change')} the API cannot make; a person has to:`,
      ...blocked.map((c) => `  ${paint.action('blocked', '!')} ${escapeControl(c.address)}`),
    );
  for (const [action, flag, verb] of [
    ['delete', '--allow-delete', 'deletes'],
    ['replace', '--allow-replace', 'replaces'],
  ] as const) {
    const these = listed.filter((c) => c.action === action);
    if (these.length > 0)
      lines.push(
        `Needs ${flag}: it ${verb} ${formatCount(these.length)} ${plural(these.length, 'object')}:`,
        ...these.map((c) => `  ${paint.action(action, symbolOf(action))} ${escapeControl(c.address)}`),
      );
  }
  return lines.length > 0 ? ['', ...lines] : [];
}

/**
 * The cross-server checks after the plan: a headline, one `!` line per problem with the step's
 * place, and what could not be checked. Nothing when no step ran on a transfer host.
 */
export function transferChecksText(checks: TransferStepChecks | undefined): string[] {
  if (checks === undefined) return [];
  const lines = ['', transferChecksHeadline(checks)];
  for (const p of checks.problems) {
    const place = transferProblemPlace(p);
    lines.push(
      `  ! ${escapeControl(transferStepLabel(p))}: ${escapeControl(transferProblemText(p))}${place === undefined ? '' : ` (${escapeControl(place)})`}`,
    );
  }
  for (const note of transferCheckNotes(checks)) lines.push(`  # ${note}`);
  return lines;
}

/** One listed change as the terminal plan shows it, without colour: its header line, then its indented details. */
export function renderChangeText(change: Change): string[] {
  return renderChange(change, painter(false));
}

function renderChange(change: Change, paint: Painter): string[] {
  const renamed = change.previousName === undefined ? '' : ` (renamed from ${quote(change.previousName)})`;
  const lines = [
    `${paint.action(change.action, symbolOf(change.action))} ${paint.bold(escapeControl(change.address))} ${actionPhrase(change.action)}${renamed}`,
  ];
  const indent = '    ';
  if (change.reason !== undefined) lines.push(`${indent}# ${escapeControl(describeReason(change.reason))}`);
  const removed = removedLines(change);
  // A replace's field differences come first; then the whole object its delete removes.
  const removedAfterFields = change.action === 'replace' && removed.length > 0;
  if (!removedAfterFields) for (const line of removed) lines.push(`${indent}${paint.diffLine(`- ${line}`)}`);
  for (const field of change.fields) lines.push(...renderField(viewField(field, change.action), paint).map((l) => indent + l));
  for (const words of describeScheduleChange(change)) lines.push(`${indent}# ${words.label}: ${scheduleText(words)}`);
  if (removedAfterFields) lines.push(`${indent}# deleted first, as it is now:`, ...removed.map((l) => `${indent}${paint.diffLine(`- ${l}`)}`));
  const entries = change.entries ?? [];
  for (const entry of entries) {
    switch (entry.action) {
      case 'no-op':
        break;
      case 'blocked':
        lines.push(
          `${indent}${paint.action('blocked', '!')} ${principalLabel(entry)} is blocked${entry.reason === undefined ? '' : `: ${escapeControl(describeReason(entry.reason))}`}`,
        );
        break;
      case 'create':
      case 'update':
      case 'delete':
        lines.push(
          `${indent}${paint.action(entry.action, entrySymbol(entry))} ${principalLabel(entry)}: ${describeEntryPermissions(entry)}${originNote(entry.origin)}`,
        );
        break;
      default: {
        const never: never = entry.action;
        throw new Error(`unknown entry action ${String(never)}`);
      }
    }
  }
  const unchanged = entries.filter((e) => e.action === 'no-op').length;
  if (unchanged > 0) lines.push(`${indent}# (${formatCount(unchanged)} unchanged ${plural(unchanged, 'entry', 'entries')} hidden)`);
  return lines;
}

function renderField(view: FieldView, paint: Painter): string[] {
  const sym = paint.sign(view.symbol, view.symbol);
  const forces = fieldNote(view);
  switch (view.form) {
    case 'sensitive':
      return [`${sym} ${view.path}: (sensitive)${forces}`];
    case 'inline': {
      const value = view.before !== undefined && view.after !== undefined ? `${view.before} → ${view.after}` : (view.after ?? view.before ?? '');
      return [`${sym} ${view.path}: ${value}${forces}`];
    }
    case 'block':
      return [`${sym} ${view.path}:${forces}`, ...view.lines.map((l) => `    ${paint.diffLine(l)}`)];
    default: {
      const never: never = view;
      throw new Error(`unknown field form ${String(never)}`);
    }
  }
}

function quote(text: string): string {
  return escapeControl(JSON.stringify(text));
}

function plural(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}

interface Painter {
  action(action: Action, text: string): string;
  sign(sign: '+' | '-' | '~', text: string): string;
  diffLine(line: string): string;
  bold(text: string): string;
}

function painter(on: boolean): Painter {
  const wrap = (code: string, text: string) => (on ? `\u001b[${code}m${text}\u001b[0m` : text);
  const GREEN = '32';
  const YELLOW = '33';
  const RED = '31';
  const MAGENTA = '35';
  return {
    action(action, text) {
      switch (action) {
        case 'create':
          return wrap(GREEN, text);
        case 'update':
          return wrap(YELLOW, text);
        case 'delete':
          return wrap(RED, text);
        case 'replace':
        case 'blocked':
          return wrap(MAGENTA, text);
        case 'no-op':
          return text;
        default: {
          const never: never = action;
          throw new Error(`unknown action ${String(never)}`);
        }
      }
    },
    sign(sign, text) {
      return wrap(sign === '+' ? GREEN : sign === '-' ? RED : YELLOW, text);
    },
    diffLine(line) {
      if (line.startsWith('+')) return wrap(GREEN, line);
      if (line.startsWith('-')) return wrap(RED, line);
      if (line.startsWith('@@')) return wrap('36', line);
      return line;
    },
    bold(text) {
      return wrap('1', text);
    },
  };
}
