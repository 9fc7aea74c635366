import { summarize } from '../plan/model.js';
import type { AccessReport, Action, Change, EntryChange, Plan, PlanSummary, TransferStepChecks } from '../plan/model.js';
import { transferCheckNotes, transferChecksHeadline, transferProblemPlace, transferProblemText, transferStepLabel } from './transfer-checks.js';
import {
  cellState,
  countByKind,
  describeScheduleChange,
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
import { accessAlertCount, accessAlertItems, accessCountPhrase, accessGroupItems, accessPrincipalCount, unknownMembersMarkdown } from './access.js';
import type { Diagnostic, DiagnosticCode } from '../diagnostics.js';
import { policyMarkdown } from './policy.js';
import { calendarMarkdownBlocks } from './plan-calendar.js';
export { escapeMd } from './text.js';

export interface PlanMarkdownOptions {
  /**
   * Longest result in UTF-16 code units (never fewer than the characters GitHub counts). Default
   * 65,000, under GitHub's 65,536-character comment limit with room for a marker the caller adds.
   */
  readonly maxLength?: number;
  /** Where the full plan is, as markdown inserted as is: `the plan artifact`, or a link. */
  readonly artifactHint?: string;
  /**
   * The diagnostics the plan was made with. Those that say apply will refuse the plan (MF414, a
   * secret with no value where the plan ran) are part of the verdict; the others are the log's.
   */
  readonly diagnostics?: readonly Diagnostic[];
}

export const DEFAULT_MARKDOWN_MAX_LENGTH = 65_000;
const DEFAULT_ARTIFACT_HINT = 'the output of `mftops plan`';
/** Environment names longer than this are cut in the title, so the title always fits. */
const TITLE_NAME_MAX = 80;
/** Runs of more creates or updates of a kind than this are folded in the compact list. */
const FOLD_NAMES = 20;
/** Access sections with at most this many principals are shown open. */
const ACCESS_OPEN_MAX = 15;
/** The diagnostic codes that mean apply will refuse the plan as it is. */
const APPLY_REFUSALS: readonly DiagnosticCode[] = ['MF414'];

/**
 * The plan as a pull-request comment, in the order a reviewer decides: title; the verdict
 * (refused by policy, incomplete, apply will refuse (MF414), blocked, needs `--allow-delete` or
 * `--allow-replace`, or ready); the plan's counts; destructive changes (deletes, replaces, access
 * removed, flagged grants, `[!WARNING]`); blocked ones (`[!CAUTION]`); policy violations grouped
 * by policy; access changes grouped by principal; cross-server checks; every changed object named
 * in a compact list (kind and action counted); then one `<details>` per changed object,
 * destructive ones first. When the whole does not fit in `maxLength`, detail goes first, from the
 * end: the `<details>`, the footer, the cross-server items, the access items, the blocked and
 * destructive call-out items, then names from the end of the compact list (counted, with a
 * pointer to the full plan), then MF414 items. The title, verdict, counts and policy section are never cut; if even they do
 * not fit, that is a caller bug and a RangeError.
 */
export function renderPlanMarkdown(plan: Plan, options: PlanMarkdownOptions = {}): string {
  const maxLength = options.maxLength ?? DEFAULT_MARKDOWN_MAX_LENGTH;
  if (!Number.isInteger(maxLength) || maxLength <= 0) throw new RangeError(`maxLength must be a positive integer, got ${String(maxLength)}`);
  const hint = options.artifactHint ?? DEFAULT_ARTIFACT_HINT;
  const changed = plan.changes.filter((c) => c.action !== 'no-op');
  const summary = summarize(plan.changes);

  const refusalItems = (options.diagnostics ?? [])
    .filter((d) => APPLY_REFUSALS.includes(d.code))
    .map(
      (d) =>
        `- ${d.address === undefined ? '' : `${code(d.address)}: `}${escapeMd(d.summary.replace(/: apply will refuse this plan$/, ''))}${d.hint === undefined ? '' : ` (${escapeMd(d.hint)})`}`,
    );
  const blockedItems = [
    ...changed
      .filter((c) => c.action === 'blocked')
      .map((c) => `- ${inlineChange(c)}${c.reason === undefined ? '' : `: ${escapeMd(describeReason(c.reason))}`}`),
    ...changed.flatMap((c) =>
      c.action === 'blocked'
        ? []
        : (c.entries ?? [])
            .filter((e) => e.action === 'blocked')
            .map((e) => `- <code>!</code> ${code(c.address)}, ${principalMd(e)}${e.reason === undefined ? '' : `: ${escapeMd(describeReason(e.reason))}`}`),
    ),
  ];
  const blockedObjects = summary.blocked;
  const blockedEntries = blockedItems.length - blockedObjects;
  const verdict = memo((shown: number) => renderVerdict(plan, summary, [blockedObjects, blockedEntries], refusalItems, shown, hint));
  // The policy verdict is never cut: it is short (MAX_POLICY_LINES groups) and decides the plan.
  const head = [renderTitle(plan), planLine(plan, summary)];
  const policy = policyMarkdown(plan.policy);
  const calendarBlocks = calendarMarkdownBlocks(plan.calendar);
  const footer = renderFooter(plan);

  const destructive = changed.filter((c) => c.action === 'delete' || c.action === 'replace');
  const warningItems = [
    ...destructive.map((c) => `- ${inlineChange(c)}${c.reason === undefined ? '' : `: ${escapeMd(describeReason(c.reason))}`}`),
    ...(plan.access === undefined ? [] : accessAlertItems(plan.access)),
  ];
  const accessAlerts = plan.access === undefined ? 0 : accessAlertCount(plan.access);
  const warningCallout = memo((shown: number) =>
    warningItems.length === 0 ? [] : [callout('WARNING', destructiveHeadline(summary, accessAlerts), warningItems, shown, hint)],
  );
  const cautionCallout = memo((shown: number) =>
    blockedItems.length === 0 ? [] : [callout('CAUTION', blockedHeadline(blockedObjects, blockedEntries), blockedItems, shown, hint)],
  );
  const accessItems = plan.access === undefined ? [] : accessGroupItems(plan.access, hint);
  const accessSection = memo((shown: number) => (plan.access === undefined ? [] : [accessBlock(plan.access, accessItems, shown, hint)]));
  const checkItems = transferCheckItems(plan.transferChecks);
  const checkBlock = memo((shown: number) => transferChecksMarkdown(plan.transferChecks, checkItems, shown, hint));

  // Destructive and blocked changes first, then the rest in plan order: the order of the compact
  // list and of the details.
  const ordered = [
    ...changed.filter((c) => c.action === 'delete'),
    ...changed.filter((c) => c.action === 'replace'),
    ...changed.filter((c) => c.action === 'blocked'),
    ...changed.filter((c) => c.action === 'create' || c.action === 'update'),
  ];
  const n = ordered.length;
  const named = memo((count: number) => [changedObjects(plan, ordered, count, hint)]);

  // Details past maxLength can never be shown, so they are not rendered: 5,000 changes stay fast.
  const details: string[] = [];
  const detailSums = [0];
  for (const c of ordered) {
    if (detailSums[detailSums.length - 1]! > maxLength) break;
    const d = renderDetails(c);
    details.push(d);
    detailSums.push(detailSums[detailSums.length - 1]! + d.length + 2);
  }
  const DETAILS_HEADER = '### Details';
  // Once names are cut, their sentence says where the full plan is; this one would repeat it.
  const note = (kept: number, count: number) => {
    if (kept >= n || n === 0 || count < n) return [];
    const all = `${formatCount(n)} changed ${n === 1 ? 'object' : 'objects'}`;
    const what = kept === 0 ? `the details of the ${all} are left out` : `the details of the last ${formatCount(n - kept)} of the ${all} are left out`;
    return [`> [!NOTE]\n> To keep this comment under ${formatCount(maxLength)} characters, ${what}. The full plan is in ${hint}.`];
  };

  const fixedBlocks = (layout: Layout): string[] => [
    ...head.slice(0, 1),
    ...verdict(layout.refusalShown),
    ...head.slice(1),
    ...warningCallout(layout.warningShown),
    ...cautionCallout(layout.cautionShown),
    ...policy,
    ...calendarBlocks,
    ...accessSection(layout.accessShown),
    ...checkBlock(layout.checkShown),
    ...named(layout.named),
    ...note(layout.kept, layout.named),
  ];
  const assemble = (layout: Layout): string[] => [
    ...fixedBlocks(layout),
    ...(layout.kept > 0 ? [DETAILS_HEADER] : []),
    ...details.slice(0, layout.kept),
    ...(layout.footer ? [footer] : []),
  ];
  const lengthOf = (layout: Layout) =>
    blocksLength([...fixedBlocks(layout), ...(layout.kept > 0 ? [DETAILS_HEADER] : []), ...(layout.footer ? [footer] : [])]) + detailSums[layout.kept]!;
  const fits = (layout: Layout) => lengthOf(layout) <= maxLength;

  const full: Layout = {
    refusalShown: refusalItems.length,
    warningShown: warningItems.length,
    cautionShown: blockedItems.length,
    accessShown: accessItems.length,
    checkShown: checkItems.length,
    named: n,
    kept: details.length,
    footer: true,
  };
  const layout = chooseLayout(full, fits);
  if (layout === undefined) {
    const minimal = { ...full, refusalShown: 0, warningShown: 0, cautionShown: 0, accessShown: 0, checkShown: 0, named: 0, kept: 0, footer: false };
    throw new RangeError(`maxLength ${formatCount(maxLength)} is too small for the plan summary, which needs ${formatCount(lengthOf(minimal))} characters`);
  }
  const text = `${assemble(layout).join('\n\n')}\n`;
  if (text.length > maxLength) throw new Error(`bug: markdown plan is ${text.length} characters, over the ${maxLength} it was fitted to`);
  return text;
}

interface Layout {
  /** MF414 items of the verdict shown; the rest are counted with a pointer. Cut last of all. */
  readonly refusalShown: number;
  /** Call-out list items shown; the rest are counted with a pointer. */
  readonly warningShown: number;
  readonly cautionShown: number;
  /** Principals of the access section listed; the rest are counted with a pointer. */
  readonly accessShown: number;
  /** Cross-server problems listed; the rest are counted with a pointer. */
  readonly checkShown: number;
  /** Changed objects named in the compact list, from its start; the rest are counted. */
  readonly named: number;
  /** Changed objects with their `<details>`, from the start. */
  readonly kept: number;
  readonly footer: boolean;
}

/**
 * The richest layout that fits, dropping in the documented order; undefined if none does. The
 * compact list of names is cut only after every detail (the call-outs' reasons included: the list
 * names destructive changes first too), so a reviewer sees every object named whenever the names
 * fit at all.
 */
function chooseLayout(full: Layout, fits: (l: Layout) => boolean): Layout | undefined {
  if (fits(full)) return full;
  const kept = largest(0, full.kept, (k) => fits({ ...full, kept: k }));
  if (kept !== undefined) return { ...full, kept };
  let l: Layout = { ...full, kept: 0, footer: false };
  if (fits(l)) return l;
  const steps: (keyof Omit<Layout, 'kept' | 'footer'>)[] = ['checkShown', 'accessShown', 'cautionShown', 'warningShown', 'named', 'refusalShown'];
  for (const key of steps) {
    const base = l;
    const best = largest(0, full[key] - 1, (x) => fits({ ...base, [key]: x }));
    if (best !== undefined) return { ...base, [key]: best };
    l = { ...base, [key]: 0 };
  }
  return fits(l) ? l : undefined;
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

function renderTitle(plan: Plan): string {
  const env = plan.environment.length > TITLE_NAME_MAX ? `${plan.environment.slice(0, TITLE_NAME_MAX)}…` : plan.environment;
  const lines = [`## mftops plan: ${escapeMd(env)}`];
  const targets = plan.targets ?? [];
  if (targets.length > 0) lines.push('', `Limited to ${formatCount(targets.length)} \`--target\` ${targets.length === 1 ? 'address' : 'addresses'}.`);
  if (plan.pruneOff !== undefined) lines.push('', `> [!NOTE]\n> ${escapeMd(pruneOffSentence(plan.pruneOff))}`);
  return lines.join('\n');
}

function planLine(plan: Plan, summary: PlanSummary): string {
  const changes = plan.changes.some((c) => c.action !== 'no-op');
  const access = plan.access === undefined ? '' : ` ${escapeMd(accessCountPhrase(plan.access))}.`;
  return changes ? `**Plan:** ${planSentence(summary).slice('Plan: '.length)}${access}` : `**No changes.** ${NO_CHANGES.slice('No changes. '.length)}`;
}

/**
 * What happens to this plan, first: each reason it cannot go as it is, most serious first, in a
 * call-out (`[!CAUTION]` when it is refused or blocked, `[!WARNING]` when it needs a flag), or
 * `Ready to apply` in a `[!NOTE]`. Nothing for a plan without changes.
 */
function renderVerdict(
  plan: Plan,
  summary: PlanSummary,
  [objects, entries]: readonly [number, number],
  refusals: readonly string[],
  shown: number,
  hint: string,
): string[] {
  const caution: string[] = [];
  const warning: string[] = [];
  const denies = (plan.policy?.violations ?? []).filter((v) => v.severity === 'deny').length;
  if (denies > 0)
    caution.push(
      `**Refused by policy:** ${formatCount(denies)} \`deny\` ${denies === 1 ? 'violation' : 'violations'}, listed below. The plan was not saved; it cannot be applied.`,
    );
  if (plan.errored) caution.push('**Incomplete:** errors left objects out of this plan (see the log); it cannot be saved or applied.');
  if (refusals.length > 0) {
    const n = refusals.length;
    const lines = [
      `**Apply will refuse this plan** (MF414): ${formatCount(n)} secret ${n === 1 ? 'reference has' : 'references have'} no value where the plan ran.`,
    ];
    if (shown > 0) lines.push(...refusals.slice(0, shown));
    if (shown < n) lines.push(shown > 0 ? `- …and ${formatCount(n - shown)} more, in ${hint}.` : `They are listed in ${hint}.`);
    caution.push(lines.join('\n'));
  }
  if (objects + entries > 0) {
    const parts = [
      ...(objects > 0 ? [`${formatCount(objects)} ${objects === 1 ? 'change' : 'changes'}`] : []),
      ...(entries > 0 ? [`${formatCount(entries)} folder ACL ${entries === 1 ? 'entry' : 'entries'}`] : []),
    ];
    caution.push(`**Blocked:** ${parts.join(' and ')} the API cannot make, listed below; a person has to.`);
  }
  if (summary.delete > 0)
    warning.push(`**Needs \`--allow-delete\`:** it deletes ${formatCount(summary.delete)} ${summary.delete === 1 ? 'object' : 'objects'}, listed below.`);
  if (summary.replace > 0)
    warning.push(
      `**Needs \`--allow-replace\`:** it replaces ${formatCount(summary.replace)} ${summary.replace === 1 ? 'object' : 'objects'} by a delete and a create, listed below.`,
    );
  const reasons = [...caution, ...warning];
  if (reasons.length === 0) {
    if (!plan.changes.some((c) => c.action !== 'no-op')) return [];
    return ['> [!NOTE]\n> **Ready to apply:** nothing in this plan needs a flag, a person or a secret it lacks.'];
  }
  const type = caution.length > 0 ? 'CAUTION' : 'WARNING';
  return [[`> [!${type}]`, ...reasons.flatMap((r, i) => [...(i > 0 ? ['>'] : []), ...r.split('\n').map((l) => `> ${l}`)])].join('\n')];
}

function destructiveHeadline(summary: PlanSummary, accessItems: number): string {
  const parts: string[] = [];
  if (summary.delete > 0) parts.push(`${formatCount(summary.delete)} to delete (needs \`--allow-delete\`)`);
  if (summary.replace > 0) parts.push(`${formatCount(summary.replace)} to replace by delete and create (needs \`--allow-replace\`)`);
  const total = summary.delete + summary.replace;
  const changes = `${formatCount(accessItems)} access ${accessItems === 1 ? 'change' : 'changes'} to look at (all access removed, or a permission to review granted)`;
  if (total === 0) return `**${changes.slice(0, 1).toUpperCase()}${changes.slice(1)}.**`;
  const access = accessItems > 0 ? `; ${changes}` : '';
  return `**${formatCount(total)} destructive ${total === 1 ? 'change' : 'changes'}:** ${parts.join(', ')}${access}.`;
}

function blockedHeadline(objects: number, entries: number): string {
  const parts: string[] = [];
  if (objects > 0) parts.push(`${formatCount(objects)} ${objects === 1 ? 'change' : 'changes'}`);
  if (entries > 0) parts.push(`${formatCount(entries)} folder ACL ${entries === 1 ? 'entry' : 'entries'}`);
  const one = objects + entries === 1;
  return `**${parts.join(' and ')} blocked:** the API cannot do ${one ? 'it' : 'them'}; a person has to.`;
}

const COMPACT_ACTIONS = [
  ['delete', 'to delete'],
  ['replace', 'to replace'],
  ['blocked', 'blocked'],
  ['create', 'to create'],
  ['update', 'to update'],
] as const satisfies readonly (readonly [Action, string])[];

/**
 * Every changed object named (the first `named` of `ordered`), one line per action and kind,
 * destructive first, under the table of counts; names not shown are counted with a pointer.
 */
function changedObjects(plan: Plan, ordered: readonly Change[], named: number, hint: string): string {
  const summary = summarize(plan.changes);
  const lines = [
    ...(ordered.length > 0 ? ['### Changed objects', ''] : []),
    `| Kind | ${TABLE_ACTIONS.map(([, label]) => label).join(' | ')} |`,
    `|:--|${TABLE_ACTIONS.map(() => '--:').join('|')}|`,
  ];
  for (const { kind, counts } of countByKind(plan.changes)) lines.push(`| ${kind} | ${TABLE_ACTIONS.map(([a]) => formatCount(counts[a])).join(' | ')} |`);
  lines.push(`| **Total** | ${TABLE_ACTIONS.map(([a]) => `**${formatCount(summary[a])}**`).join(' | ')} |`, '');
  const shownSet = new Set(ordered.slice(0, named));
  for (const [action, words] of COMPACT_ACTIONS) {
    for (const { kind } of countByKind(plan.changes)) {
      const group = ordered.filter((c) => c.action === action && c.kind === kind);
      if (group.length === 0) continue;
      const shown = group.filter((c) => shownSet.has(c));
      const rest = group.length - shown.length;
      const names = shown.map((c) => `${codeName(c.name)}${c.previousName === undefined ? '' : ` (was ${codeName(c.previousName)})`}`);
      const label = `<code>${symbolOf(action)}</code> <b>${kind}</b>, ${formatCount(group.length)} ${words}`;
      const list = `${names.join(', ')}${rest > 0 ? `${names.length > 0 ? ', ' : ''}${rest === group.length ? '' : 'and '}${formatCount(rest)} not named here` : ''}`;
      // A long run of creates or updates is folded (still in the comment, found by the browser's
      // search); destructive and blocked ones are always in view.
      const fold = shown.length > FOLD_NAMES && (action === 'create' || action === 'update');
      lines.push(
        fold
          ? `- <details><summary>${label}</summary>

  ${list}

  </details>`
          : `- ${label}: ${list}`,
      );
    }
  }
  const unnamed = ordered.length - Math.min(named, ordered.length);
  if (unnamed > 0)
    lines.push(
      '',
      `${formatCount(unnamed)} of the ${formatCount(ordered.length)} changed objects are not named here, to keep this comment within its size. The full plan is in ${hint}.`,
    );
  return lines.join('\n');
}

/** A plain name in a code span (short), any other in `<code>` with markup escaped. */
function codeName(name: string): string {
  return escapeMd(name) !== name || /`|^\s|\s$|[\r\n]/.test(name) ? code(name) : `\`${name}\``;
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

/**
 * The access section, grouped by principal: collapsed under its counts (open when short), as many
 * principals as fit, the rest counted. What must be looked at is also in the destructive call-out.
 */
function accessBlock(report: AccessReport, items: readonly string[], shown: number, hint: string): string {
  const open = items.length <= ACCESS_OPEN_MAX ? ' open' : '';
  const principals = accessPrincipalCount(report);
  const lines = [
    `<details${open}><summary><b>Access changes:</b> ${escapeMd(accessCountPhrase(report))} (${formatCount(principals)} ${principals === 1 ? 'principal' : 'principals'})</summary>`,
    '',
  ];
  const unknown = unknownMembersMarkdown(report);
  if (unknown.length > 0) lines.push(unknown.join(' '), '');
  if (shown > 0) lines.push(...items.slice(0, shown));
  if (shown < items.length) lines.push(shown > 0 ? `- …and ${formatCount(items.length - shown)} more, listed in ${hint}.` : `The list is in ${hint}.`);
  lines.push('', '</details>');
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
    parts.push(
      `${service} ${escapeMd(clip(s.url, 200))}${s.version === undefined ? '' : ` ${escapeMd(clip(s.version, 40))}`} as ${escapeMd(clip(s.username, 80))}`,
    );
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
  const removedBlock =
    removed.length === 0
      ? []
      : [
          `**${change.action === 'replace' ? 'Deleted first, as it is now' : 'Removes'}:**\n\n${fence(
            'diff',
            removed.map((l) => `- ${l}`),
          )}`,
        ];
  if (change.action !== 'replace') body.push(...removedBlock);
  if (change.fields.length > 0)
    body.push(
      fence(
        'diff',
        change.fields.flatMap((f) => diffLines(viewField(f, change.action))),
      ),
    );
  for (const words of describeScheduleChange(change)) body.push(`**${escapeMd(words.label)} in words:** ${escapeMd(scheduleText(words))}`);
  if (change.action === 'replace') body.push(...removedBlock);
  const entries = change.entries ?? [];
  if (entries.length > 0) body.push(permissionMatrix(entries));
  const blocked = entries.filter((e) => e.action === 'blocked');
  if (blocked.length > 0)
    body.push(
      blocked.map((e) => `- <code>!</code> ${principalMd(e)} is blocked${e.reason === undefined ? '' : `: ${escapeMd(describeReason(e.reason))}`}`).join('\n'),
    );
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

/** Words, not look-alike marks (`✓`/`+`, `✗`/`−` read alike at comment size): changes in bold. */
const CELL: Readonly<Record<CellState, string>> = { granted: 'yes', denied: '·', added: '**added**', removed: '**removed**' };

function entryActionWord(entry: EntryChange): string {
  const word = entry.action === 'no-op' ? 'unchanged' : entry.action;
  return entry.origin === undefined ? word : `${word} (from ${escapeMd(`${entry.origin.file}:${entry.origin.line}`)})`;
}

/**
 * Rows: principals; columns: only the permissions some entry gains or loses (a folder has up to
 * 13, too wide for a comment), else those granted at all (nothing changes: a blocked entry).
 */
function permissionMatrix(entries: readonly EntryChange[]): string {
  const all = permissionColumns(entries);
  const changing = all.filter((c) => entries.some((e) => ['added', 'removed'].includes(cellState(e, c))));
  const columns = changing.length > 0 ? changing : all.filter((c) => entries.some((e) => cellState(e, c) === 'granted'));
  const header = columns.map((c) => escapeMd(c.set === 'sharePermissions' ? `share: ${c.name}` : c.name));
  const row = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  const lines = [row(['Principal', 'Change', ...header]), `|${[':--', ':--', ...columns.map(() => ':-:')].join('|')}|`];
  for (const e of entries)
    lines.push(row([`${e.principal.type} ${escapeMd(e.principal.name)}`, entryActionWord(e), ...columns.map((c) => CELL[cellState(e, c)])]));
  const others = all.length - columns.length;
  lines.push(
    '',
    `**added**, **removed**: by this change · yes: granted before and after · ·: not granted${changing.length > 0 && others > 0 ? ` · the other ${formatCount(others)} permissions do not change` : ''}`,
  );
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
