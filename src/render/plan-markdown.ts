import { summarize } from '../plan/model.js';
import type { Action, Change, EntryChange, Plan, PlanSummary, TransferStepChecks } from '../plan/model.js';
import { transferCheckNotes, transferChecksHeadline, transferProblemPlace, transferProblemText, transferStepLabel } from './transfer-checks.js';
import {
  cellState,
  countByKind,
  describeScheduleChange,
  escapeControl,
  formatCount,
  NO_CHANGES,
  permissionColumns,
  planSentence,
  pruneOffSentence,
  removedLines,
  scheduleText,
  symbolOf,
  viewField,
  variablesSentence,
  fieldNote,
} from './plan-common.js';
import type { CellState, FieldView } from './plan-common.js';
import { describeReason } from '../resources/reasons.js';
import { escapeMd } from './text.js';
import { accessCountPhrase, accessMarkdownHead, accessMarkdownItems } from './access.js';
import { policyMarkdown } from './policy.js';
export { escapeMd } from './text.js';

export interface PlanMarkdownOptions {
  /**
   * Longest result in UTF-16 code units (never fewer than the characters GitHub counts). Default
   * 65,000, under GitHub's 65,536-character comment limit with room for a marker the caller adds.
   */
  readonly maxLength?: number;
  /** Where the full plan is, as markdown inserted as is: `the plan artifact`, or a link. */
  readonly artifactHint?: string;
}

export const DEFAULT_MARKDOWN_MAX_LENGTH = 65_000;
const DEFAULT_ARTIFACT_HINT = 'the output of `mftops plan`';
/** Environment names longer than this are cut in the title, so the title always fits. */
const TITLE_NAME_MAX = 80;

/**
 * The plan as a pull-request comment: title, summary table, who gains or loses access, destructive
 * changes (`[!WARNING]`), blocked ones (`[!CAUTION]`), then one `<details>` per changed object.
 * When the whole does not fit in `maxLength`, detail goes first, from the end: `<details>` bodies
 * (the object stays as a list line), then list lines, then the metadata footer, then call-out
 * items, then access items (each replaced by a count and a pointer). The title and summary table
 * are never cut; if even they and the counts do not fit, that is a caller bug and a RangeError.
 */
export function renderPlanMarkdown(plan: Plan, options: PlanMarkdownOptions = {}): string {
  const maxLength = options.maxLength ?? DEFAULT_MARKDOWN_MAX_LENGTH;
  if (!Number.isInteger(maxLength) || maxLength <= 0) throw new RangeError(`maxLength must be a positive integer, got ${String(maxLength)}`);
  const hint = options.artifactHint ?? DEFAULT_ARTIFACT_HINT;
  const changed = plan.changes.filter((c) => c.action !== 'no-op');
  const summary = summarize(plan.changes);

  // The policy verdict is never cut: it is short (MAX_POLICY_LINES) and decides the plan.
  const head = [renderHead(plan, summary), ...policyMarkdown(plan.policy)].join('\n\n');
  const footer = renderFooter(plan);
  const warnings = changed.filter((c) => c.action === 'delete' || c.action === 'replace');
  const warningItems = warnings.map((c) => `- ${inlineChange(c)}${c.reason === undefined ? '' : `: ${escapeMd(describeReason(c.reason))}`}`);
  const blockedItems = [
    ...changed.filter((c) => c.action === 'blocked').map((c) => `- ${inlineChange(c)}${c.reason === undefined ? '' : `: ${escapeMd(describeReason(c.reason))}`}`),
    ...changed.flatMap((c) =>
      c.action === 'blocked'
        ? []
        : (c.entries ?? []).filter((e) => e.action === 'blocked').map((e) => `- <code>!</code> ${code(c.address)}, ${principalMd(e)}${e.reason === undefined ? '' : `: ${escapeMd(describeReason(e.reason))}`}`),
    ),
  ];
  const blockedObjects = summary.blocked;
  const blockedEntries = blockedItems.length - blockedObjects;
  const warningCallout = memo((shown: number) => (warnings.length === 0 ? [] : [callout('WARNING', destructiveHeadline(summary), warningItems, shown, hint)]));
  const cautionCallout = memo((shown: number) => (blockedItems.length === 0 ? [] : [callout('CAUTION', blockedHeadline(blockedObjects, blockedEntries), blockedItems, shown, hint)]));
  // Who gains or loses what comes first, and is the last thing cut.
  const accessItems = plan.access === undefined ? [] : accessMarkdownItems(plan.access);
  const accessSection = memo((shown: number) => (plan.access === undefined ? [] : [accessBlock(accessMarkdownHead(plan.access), accessItems, shown, hint)]));
  const checkItems = transferCheckItems(plan.transferChecks);
  const checkBlock = memo((shown: number) => transferChecksMarkdown(plan.transferChecks, checkItems, shown, hint));

  // Details past maxLength can never be shown, so they are not rendered: 5,000 changes stay fast.
  const details: string[] = [];
  const detailSums = [0];
  for (const c of changed) {
    if (detailSums[detailSums.length - 1]! > maxLength) break;
    const d = renderDetails(c);
    details.push(d);
    detailSums.push(detailSums[detailSums.length - 1]! + d.length + 2);
  }
  const listLines = changed.map((c) => `- ${inlineChange(c)}`);
  const n = changed.length;
  const note = (kept: number, listed: number) => {
    if (kept >= n) return [];
    const all = `${formatCount(n)} changed ${n === 1 ? 'object' : 'objects'}`;
    const are = n === 1 ? 'is' : 'are';
    const what =
      listed === 0
        ? `none of the ${all} ${are} listed here`
        : listed < n
          ? `only the first ${formatCount(listed)} of the ${all} are listed, without details`
          : kept === 0
            ? `the ${all} ${are} listed without details`
            : `the details of the last ${formatCount(n - kept)} of the ${all} are left out`;
    return [`> [!NOTE]\n> To keep this comment under ${formatCount(maxLength)} characters, ${what}. The full plan is in ${hint}.`];
  };
  const LIST_HEADER = 'Also changed (details left out):';

  const assemble = (layout: Layout): string[] => [
    head,
    ...accessSection(layout.accessShown),
    ...warningCallout(layout.warningShown),
    ...cautionCallout(layout.cautionShown),
    ...checkBlock(layout.checkShown),
    ...note(layout.kept, layout.listed),
    ...details.slice(0, layout.kept),
    ...(layout.listed > layout.kept ? [[LIST_HEADER, ...listLines.slice(layout.kept, layout.listed)].join('\n')] : []),
    ...(layout.footer ? [footer] : []),
  ];

  // Lengths by prefix sums, so each layout is measured without building it.
  const lineSums = prefixSums(listLines.map((l) => l.length + 1));
  const fixedLength = (layout: Layout) =>
    blocksLength([head, ...accessSection(layout.accessShown), ...warningCallout(layout.warningShown), ...cautionCallout(layout.cautionShown), ...checkBlock(layout.checkShown), ...note(layout.kept, layout.listed), ...(layout.footer ? [footer] : [])]);
  const lengthOf = (layout: Layout) => {
    let len = fixedLength(layout) + detailSums[layout.kept]!;
    if (layout.listed > layout.kept) len += LIST_HEADER.length + 2 + lineSums[layout.listed]! - lineSums[layout.kept]!;
    return len;
  };
  const fits = (layout: Layout) => lengthOf(layout) <= maxLength;

  const full: Layout = { accessShown: accessItems.length, warningShown: warningItems.length, cautionShown: blockedItems.length, checkShown: checkItems.length, kept: details.length, listed: n, footer: true };
  const layout = chooseLayout(full, fits);
  if (layout === undefined) {
    const minimal = { ...full, accessShown: 0, warningShown: 0, cautionShown: 0, checkShown: 0, kept: 0, listed: 0, footer: false };
    throw new RangeError(`maxLength ${formatCount(maxLength)} is too small for the plan summary, which needs ${formatCount(lengthOf(minimal))} characters`);
  }
  const text = `${assemble(layout).join('\n\n')}\n`;
  if (text.length > maxLength) throw new Error(`bug: markdown plan is ${text.length} characters, over the ${maxLength} it was fitted to`);
  return text;
}

interface Layout {
  /** Access changes listed; the rest are counted with a pointer. Cut last of all. */
  readonly accessShown: number;
  /** Call-out list items shown; the rest are counted with a pointer. */
  readonly warningShown: number;
  readonly cautionShown: number;
  /** Cross-server problems listed; the rest are counted with a pointer. */
  readonly checkShown: number;
  /** Changed objects with their `<details>`, from the start. */
  readonly kept: number;
  /** Changed objects named at all (kept ones, then list lines). */
  readonly listed: number;
  readonly footer: boolean;
}

/** The richest layout that fits, dropping in the documented order; undefined if none does. */
function chooseLayout(full: Layout, fits: (l: Layout) => boolean): Layout | undefined {
  if (fits(full)) return full;
  const kept = largest(0, full.kept, (k) => fits({ ...full, kept: k }));
  if (kept !== undefined) return { ...full, kept };
  const listed = largest(0, full.listed - 1, (l) => fits({ ...full, kept: 0, listed: l }));
  if (listed !== undefined) return { ...full, kept: 0, listed };
  const bare = { ...full, kept: 0, listed: 0, footer: false };
  if (fits(bare)) return bare;
  // Destructive changes are what a reviewer must see: the cross-server problems are shortened
  // first (they are warnings, also in the log), then the blocked list; who gains or loses what
  // is the last thing cut.
  const checkShown = largest(0, full.checkShown - 1, (c) => fits({ ...bare, checkShown: c }));
  if (checkShown !== undefined) return { ...bare, checkShown };
  const unchecked = { ...bare, checkShown: 0 };
  const cautionShown = largest(0, full.cautionShown - 1, (c) => fits({ ...unchecked, cautionShown: c }));
  if (cautionShown !== undefined) return { ...unchecked, cautionShown };
  const warningShown = largest(0, full.warningShown, (w) => fits({ ...unchecked, cautionShown: 0, warningShown: w }));
  if (warningShown !== undefined) return { ...unchecked, cautionShown: 0, warningShown };
  const accessShown = largest(0, full.accessShown - 1, (a) => fits({ ...unchecked, cautionShown: 0, warningShown: 0, accessShown: a }));
  return accessShown === undefined ? undefined : { ...unchecked, cautionShown: 0, warningShown: 0, accessShown };
}

/**
 * The largest x in [lo, hi] for which `ok` holds, by bisection (the length grows with x), or
 * undefined. The answer is always one `ok` was true for, so a non-monotone step cannot overflow.
 */
function largest(lo: number, hi: number, ok: (x: number) => boolean): number | undefined {
  if (hi < lo || !ok(lo)) return undefined;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (ok(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function memo<T>(f: (n: number) => T): (n: number) => T {
  const cache = new Map<number, T>();
  return (n) => {
    let v = cache.get(n);
    if (v === undefined) {
      v = f(n);
      cache.set(n, v);
    }
    return v;
  };
}

function prefixSums(values: readonly number[]): number[] {
  const sums = [0];
  for (const v of values) sums.push(sums[sums.length - 1]! + v);
  return sums;
}

/** Length of blocks joined by blank lines, with the final newline. */
function blocksLength(blocks: readonly string[]): number {
  return blocks.reduce((sum, b) => sum + b.length, 0) + 2 * Math.max(0, blocks.length - 1) + 1;
}

// ------------------------------------------------------------------------------------- sections

const TABLE_ACTIONS = [
  ['create', 'Create'],
  ['update', 'Update'],
  ['replace', 'Replace'],
  ['delete', 'Delete'],
  ['blocked', 'Blocked'],
  ['no-op', 'Unchanged'],
] as const satisfies readonly (readonly [Action, string])[];

function renderHead(plan: Plan, summary: PlanSummary): string {
  const env = plan.environment.length > TITLE_NAME_MAX ? `${plan.environment.slice(0, TITLE_NAME_MAX)}…` : plan.environment;
  const lines = [`## mftops plan: ${escapeMd(env)}`, ''];
  const targets = plan.targets ?? [];
  if (targets.length > 0) lines.push(`Limited to ${formatCount(targets.length)} \`--target\` ${targets.length === 1 ? 'address' : 'addresses'}.`, '');
  if (plan.pruneOff !== undefined) lines.push(`> [!NOTE]\n> ${escapeMd(pruneOffSentence(plan.pruneOff))}`, '');
  lines.push(`| Kind | ${TABLE_ACTIONS.map(([, label]) => label).join(' | ')} |`, `|:--|${TABLE_ACTIONS.map(() => '--:').join('|')}|`);
  for (const { kind, counts } of countByKind(plan.changes)) lines.push(`| ${kind} | ${TABLE_ACTIONS.map(([a]) => formatCount(counts[a])).join(' | ')} |`);
  lines.push(`| **Total** | ${TABLE_ACTIONS.map(([a]) => `**${formatCount(summary[a])}**`).join(' | ')} |`, '');
  const changes = plan.changes.some((c) => c.action !== 'no-op');
  const access = plan.access === undefined ? '' : ` ${escapeMd(accessCountPhrase(plan.access))}.`;
  lines.push(changes ? `**Plan:** ${planSentence(summary).slice('Plan: '.length)}${access}` : `**No changes.** ${NO_CHANGES.slice('No changes. '.length)}`);
  return lines.join('\n');
}

function destructiveHeadline(summary: PlanSummary): string {
  const parts: string[] = [];
  if (summary.delete > 0) parts.push(`${formatCount(summary.delete)} to delete (needs \`--allow-delete\`)`);
  if (summary.replace > 0) parts.push(`${formatCount(summary.replace)} to replace by delete and create (needs \`--allow-replace\`)`);
  const total = summary.delete + summary.replace;
  return `**${formatCount(total)} destructive ${total === 1 ? 'change' : 'changes'}:** ${parts.join(', ')}.`;
}

function blockedHeadline(objects: number, entries: number): string {
  const parts: string[] = [];
  if (objects > 0) parts.push(`${formatCount(objects)} ${objects === 1 ? 'change' : 'changes'}`);
  if (entries > 0) parts.push(`${formatCount(entries)} folder ACL ${entries === 1 ? 'entry' : 'entries'}`);
  const one = objects + entries === 1;
  return `**${parts.join(' and ')} blocked:** the API cannot do ${one ? 'it' : 'them'}; a person has to.`;
}

/** The cross-server problems as markdown list items. */
export function transferCheckItems(checks: TransferStepChecks | undefined): string[] {
  return (checks?.problems ?? []).map((p) => {
    const place = transferProblemPlace(p);
    return `- ${code(transferStepLabel(p))}: ${escapeMd(transferProblemText(p))}${place === undefined ? '' : ` (at ${code(place)})`}`;
  });
}

/**
 * The cross-server checks: a `[!WARNING]` call-out listing the problems (the first `shown`), or one
 * line when there are none; what could not be checked below it. Nothing without checks.
 */
export function transferChecksMarkdown(checks: TransferStepChecks | undefined, items: readonly string[], shown: number, hint: string): string[] {
  if (checks === undefined) return [];
  const notes = transferCheckNotes(checks).map((n) => escapeMd(n));
  const headline = `**${escapeMd(transferChecksHeadline(checks))}**`;
  if (items.length === 0) return [[headline, ...notes].join(' ')];
  return [[callout('WARNING', headline, items, shown, hint), ...notes.map((n) => `> ${n}`)].join('\n>\n')];
}

/** The access section: its heading and count, then as many of its items as fit, the rest counted. */
function accessBlock(head: string, items: readonly string[], shown: number, hint: string): string {
  const lines = [head];
  if (shown > 0) lines.push('', ...items.slice(0, shown));
  if (shown < items.length) lines.push('', shown > 0 ? `- …and ${formatCount(items.length - shown)} more, listed in ${hint}.` : `The list is in ${hint}.`);
  return lines.join('\n');
}

function callout(type: 'WARNING' | 'CAUTION', headline: string, items: readonly string[], shown: number, hint: string): string {
  const lines = [`> [!${type}]`, `> ${headline}`];
  if (shown > 0) lines.push('>', ...items.slice(0, shown).map((i) => `> ${i}`));
  if (shown < items.length) lines.push(shown > 0 ? `> - …and ${formatCount(items.length - shown)} more, listed in ${hint}.` : `> The list is in ${hint}.`);
  return lines.join('\n');
}

function renderFooter(plan: Plan): string {
  const parts = [`mftops ${escapeMd(plan.toolVersion)}`, escapeMd(plan.createdAt)];
  for (const service of ['automation', 'transfer'] as const) {
    const s = plan.servers[service];
    if (s === undefined) continue;
    parts.push(`${service} ${escapeMd(clip(s.url, 200))}${s.version === undefined ? '' : ` ${escapeMd(clip(s.version, 40))}`} as ${escapeMd(clip(s.username, 80))}`);
  }
  parts.push(`manifests ${escapeMd(clip(plan.manifestDigest, 80))}`);
  if (plan.variables !== undefined) parts.push(escapeMd(clip(variablesSentence(plan.variables), 400)));
  return `<sub>${parts.join(' · ')}</sub>`;
}

/** `<code>~</code> <b>Task/x</b> update (renamed from <code>y</code>)`: safe in a list, a table, or a `<summary>`. */
function inlineChange(change: Change): string {
  const renamed = change.previousName === undefined ? '' : ` (renamed from ${code(change.previousName)})`;
  return `<code>${symbolOf(change.action)}</code> <b>${escapeMd(change.address)}</b> ${change.action}${renamed}`;
}

function renderDetails(change: Change): string {
  const body: string[] = [];
  const meta: string[] = [];
  if (change.source !== undefined) meta.push(`Declared in ${code(`${change.source.file}:${change.source.line}:${change.source.col}`)}`);
  else if (change.action === 'delete') meta.push('Not declared in any manifest');
  if (change.liveId !== undefined) meta.push(`live id ${code(change.liveId)}`);
  if (meta.length > 0) body.push(`${meta.join(' · ')}.`);
  if (change.reason !== undefined) body.push(`**Reason:** ${escapeMd(describeReason(change.reason))}`);
  const removed = removedLines(change);
  // A delete's content is all there is to show; a replace's comes after its field differences.
  const removedBlock = removed.length === 0 ? [] : [`**${change.action === 'replace' ? 'Deleted first, as it is now' : 'Removes'}:**\n\n${fence('diff', removed.map((l) => `- ${l}`))}`];
  if (change.action !== 'replace') body.push(...removedBlock);
  if (change.fields.length > 0) body.push(fence('diff', change.fields.flatMap((f) => diffLines(viewField(f, change.action)))));
  for (const words of describeScheduleChange(change)) body.push(`**${escapeMd(words.label)} in words:** ${escapeMd(scheduleText(words))}`);
  if (change.action === 'replace') body.push(...removedBlock);
  const entries = change.entries ?? [];
  if (entries.length > 0) body.push(permissionMatrix(entries));
  const blocked = entries.filter((e) => e.action === 'blocked');
  if (blocked.length > 0) body.push(blocked.map((e) => `- <code>!</code> ${principalMd(e)} is blocked${e.reason === undefined ? '' : `: ${escapeMd(describeReason(e.reason))}`}`).join('\n'));
  if (body.length === 0) body.push('Nothing else to show.');
  return `<details><summary>${inlineChange(change)}</summary>\n\n${body.join('\n\n')}\n\n</details>`;
}

function diffLines(view: FieldView): string[] {
  const forces = fieldNote(view);
  switch (view.form) {
    case 'sensitive':
      return [`${view.symbol} ${view.path}: (sensitive)${forces}`];
    case 'inline':
      if (view.before !== undefined && view.after !== undefined) return [`- ${view.path}: ${view.before}`, `+ ${view.path}: ${view.after}${forces}`];
      return [`${view.symbol} ${view.path}: ${view.after ?? view.before ?? ''}${forces}`];
    case 'block':
      // Indented under the field's line; hunk headers stay at the margin, where GitHub colours them.
      return [`${view.symbol} ${view.path}:${forces}`, ...view.lines.map((l) => (l.startsWith('@@') ? l : `${l.slice(0, 1)}  ${l.slice(1)}`))];
    default: {
      const never: never = view;
      throw new Error(`unknown field form ${String(never)}`);
    }
  }
}

/** A fenced block whose fence is longer than any backtick run inside, so no value can close it. */
function fence(lang: string, lines: readonly string[]): string {
  let longest = 0;
  for (const l of lines) for (const run of l.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const marks = '`'.repeat(Math.max(3, longest + 1));
  return `${marks}${lang}\n${lines.join('\n')}\n${marks}`;
}

const CELL: Readonly<Record<CellState, string>> = { granted: '✓', denied: '✗', added: '+', removed: '−' };

function entryActionWord(entry: EntryChange): string {
  const word = entry.action === 'no-op' ? 'unchanged' : entry.action;
  return entry.origin === undefined ? word : `${word} (from ${escapeMd(`${entry.origin.file}:${entry.origin.line}`)})`;
}

/** Rows: principals; columns: permissions (then share permissions in use); ✓ ✗ + −. */
function permissionMatrix(entries: readonly EntryChange[]): string {
  const columns = permissionColumns(entries);
  const header = columns.map((c) => escapeMd(c.set === 'sharePermissions' ? `share: ${c.name}` : c.name));
  const lines = [`| Principal | Change | ${header.join(' | ')} |`, `|:--|:--|${columns.map(() => ':-:').join('|')}|`];
  for (const e of entries) lines.push(`| ${e.principal.type} ${escapeMd(e.principal.name)} | ${entryActionWord(e)} | ${columns.map((c) => CELL[cellState(e, c)]).join(' | ')} |`);
  lines.push('', '✓ granted · ✗ not granted · + granted by this change · − removed by this change');
  return lines.join('\n');
}

function principalMd(entry: EntryChange): string {
  return `${entry.principal.type.toLowerCase()} ${code(entry.principal.name)}`;
}

function code(text: string): string {
  return `<code>${escapeMd(text)}</code>`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

