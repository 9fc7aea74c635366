import { credentialSectionMarkdown } from './credential-expiry.js';
import type { AcknowledgedItem, DriftedObject, DriftReport, UnmanagedObject } from '../drift/model.js';
import type { JsonValue } from '../plan/model.js';
import {
  attributionNotes,
  attributionText,
  driftedWhy,
  driftPhrase,
  driftSentence,
  entryPhrase,
  expiredText,
  grantText,
  sideWords,
  unmanagedOmittedSentence,
  unmanagedText,
  unmanagedWaysOut,
  valueText,
  waysOut,
} from './drift-common.js';
import type { CommandContext, ValueWords } from './drift-common.js';
import { withDefined } from '../with-defined.js';
import { formatCount } from './text.js';
import { transferCheckItems, transferChecksMarkdown } from './plan-markdown.js';
import { DRIFT_ACCESS_HEADING, accessMarkdownHead, accessMarkdownItems } from './access.js';
import { escapeMd } from './text.js';
import { policyMarkdown } from './policy.js';
import { privilegedAccountsMarkdown, signOnMarkdown } from './drift-accounts.js';

export interface DriftMarkdownOptions {
  /** Longest result; default 65,000 (a GitHub issue body or comment holds 65,536). */
  readonly maxLength?: number;
  /** Where the full report is, as markdown inserted as is. */
  readonly reportHint?: string;
  /** The `--config` the run was given: the printed commands name it, so that they run as printed. */
  readonly config?: string;
}

const DEFAULT_MAX_LENGTH = 65_000;
const DEFAULT_REPORT_HINT = 'the JSON report of `mftops drift --report FILE`';

/**
 * The drift report for a person reading a GitHub issue: the verdict and counts first, then per
 * drifted object what differs per field (git → server, who changed it last), then unmanaged
 * objects, then acknowledged drift. Sections that do not fit in `maxLength` are cut from the
 * end, with a note saying where the rest is.
 */
export function renderDriftMarkdown(report: DriftReport, options: DriftMarkdownOptions = {}): string {
  const maxLength = options.maxLength ?? DEFAULT_MAX_LENGTH;
  const hint = options.reportHint ?? DEFAULT_REPORT_HINT;
  const head = renderHead(report);
  const command = withDefined({ config: options.config });
  const blocks: string[] = [...policyMarkdown(report.policy, 'drift')];
  const privileged = privilegedAccountsMarkdown(report.accounts);
  if (privileged !== undefined) blocks.push(privileged);
  if (report.access !== undefined) blocks.push([accessMarkdownHead(report.access, DRIFT_ACCESS_HEADING), '', ...accessMarkdownItems(report.access)].join('\n'));
  if (report.drifted.length > 0) {
    blocks.push(`### Drifted objects\n\nValues read **git → server**: the manifest's value, then what the server has now.`);
    for (const d of report.drifted) blocks.push(renderDrifted(d, waysOut(report.environment, d, command)));
  }
  const checkItems = transferCheckItems(report.plan.transferChecks);
  blocks.push(...transferChecksMarkdown(report.plan.transferChecks, checkItems, checkItems.length, hint));
  if (report.unmanaged.length > 0) blocks.push(renderUnmanaged(report.unmanaged, report.environment, command));
  if (report.acknowledged.length > 0) blocks.push(renderAcknowledged(report.acknowledged));
  const signOn = signOnMarkdown(report.accounts);
  if (signOn !== undefined) blocks.push(signOn);
  if (report.credentials !== undefined) blocks.push(credentialSectionMarkdown(report.credentials).trimEnd());

  const out = [head];
  let length = head.length;
  let cut = 0;
  for (const [i, block] of blocks.entries()) {
    const note = cutNote(blocks.length - i, hint);
    if (length + block.length + 2 + note.length + 2 > maxLength) {
      cut = blocks.length - i;
      break;
    }
    out.push(block);
    length += block.length + 2;
  }
  if (cut > 0) out.push(cutNote(cut, hint));
  return `${out.join('\n\n')}\n`;
}

function cutNote(count: number, hint: string): string {
  return `> [!NOTE]\n> ${formatCount(count)} more ${count === 1 ? 'section is' : 'sections are'} left out to keep this under GitHub's size limit; the full report is in ${hint}.`;
}

function renderHead(report: DriftReport): string {
  const s = report.summary;
  const verdict = report.status === 'in-sync' ? '✅ in sync' : '⚠️ drift';
  const rows = [
    ['Managed objects compared', s.managed],
    ['In sync', s.inSync],
    ['Differ from their manifest', s.drifted],
    ['Unmanaged (in scope, in no manifest)', s.unmanaged],
    ['Acknowledged differences', s.acknowledged],
    ...(s.expired > 0 ? ([['Expired acknowledgements', s.expired]] as const) : []),
    ...((report.accounts?.privileged.length ?? 0) > 0 ? ([['Unmanaged privileged accounts', report.accounts!.privileged.length]] as const) : []),
  ] as const;
  const lines = [
    `## mftops drift: ${code(report.environment)} — ${verdict}`,
    '',
    driftSentence(report).replace(/[<>&]/g, (c) => `&#${c.charCodeAt(0)};`),
    '',
    '| | Count |',
    '|:--|--:|',
    ...rows.map(([label, n]) => `| ${label} | ${formatCount(n)} |`),
  ];
  if (report.unmanagedOmitted !== undefined) lines.push('', `> [!NOTE]\n> ${escapeMd(unmanagedOmittedSentence(report.unmanagedOmitted))}`);
  for (const note of attributionNotes(report)) lines.push('', `> [!NOTE]\n> ${escapeMd(note)}`);
  lines.push('', `<sub>Compared at ${escapeMd(report.createdAt)}.</sub>`);
  return lines.join('\n');
}

function renderDrifted(d: DriftedObject, ways: { readonly adopt: string; readonly revert?: string }): string {
  const lines = [`#### ${code(d.address)} ${driftPhrase(d.drift)}`];
  const facts: string[] = [];
  if (d.lastChange) facts.push(`Last change: ${escapeMd(attributionText(d.lastChange))}`);
  if (d.source) facts.push(`Declared in ${code(`${d.source.file}:${d.source.line}`)}`);
  if (facts.length > 0) lines.push('', facts.join(' · '));
  const why = driftedWhy(d);
  if (why !== undefined && d.drift !== 'changed') lines.push('', `> ${escapeMd(why)}`);
  if (d.expired) lines.push('', `> [!IMPORTANT]\n> ${escapeMd(expiredText(d.expired))}`);
  if (d.fields.length > 0) {
    lines.push('', '| Field | In git | On the server |', '|:--|:--|:--|');
    for (const f of d.fields) {
      const notes = [f.forcesReplace ? 'needs a replace' : undefined, f.expired ? expiredText(f.expired) : undefined].filter((x) => x !== undefined);
      const note = notes.length > 0 ? `<br><sub>${escapeMd(notes.join('; '))}</sub>` : '';
      lines.push(`| ${code(f.path)}${note} | ${valueMd(f.expected, sideWords(f, 'expected'))} | ${valueMd(f.actual, sideWords(f, 'actual'))} |`);
    }
  }
  if (d.entries.length > 0) {
    lines.push('', '| Entry | Difference | In git | On the server |', '|:--|:--|:--|:--|');
    for (const e of d.entries) {
      const note = e.expired ? `<br><sub>${escapeMd(expiredText(e.expired))}</sub>` : '';
      lines.push(
        `| ${e.principal.type.toLowerCase()} ${code(e.principal.name)}${note} | ${entryPhrase(e)} | ${escapeMd(grantText(e.expected))} | ${escapeMd(grantText(e.actual))} |`,
      );
    }
  }
  lines.push('', waysOutMd(ways));
  return lines.join('\n');
}

function renderUnmanaged(list: readonly UnmanagedObject[], environment: string, command: CommandContext): string {
  const lines = [
    '### Unmanaged objects',
    '',
    "In the environment's scope but named by no manifest: import them (`mftops import`) or remove them.",
    '',
    '| Object | What | Last change |',
    '|:--|:--|:--|',
  ];
  for (const u of list) {
    const notes = [u.pruned ? 'pruned: `apply --allow-delete` deletes it' : undefined, u.expired ? escapeMd(expiredText(u.expired)) : undefined].filter(
      (x) => x !== undefined,
    );
    const note = notes.length > 0 ? `<br><sub>${notes.join('; ')}</sub>` : '';
    const adopt = `<br><sub>keep it: ${code(unmanagedWaysOut(environment, u, command).adopt)}</sub>`;
    lines.push(`| ${code(u.address)}${note}${adopt} | ${escapeMd(unmanagedText(u))} | ${u.lastChange ? escapeMd(attributionText(u.lastChange)) : '—'} |`);
  }
  return lines.join('\n');
}

function renderAcknowledged(list: readonly AcknowledgedItem[]): string {
  const lines = [
    '### Acknowledged drift',
    '',
    'Known differences that `drift.ignore` accepts; they do not count as drift.',
    '',
    '| Object | Difference | In git → on the server | Until | Reason |',
    '|:--|:--|:--|:--|:--|',
  ];
  for (const a of list) {
    const values = a.expected !== undefined || a.actual !== undefined ? `${valueMd(a.expected)} → ${valueMd(a.actual)}` : '—';
    lines.push(
      `| ${code(a.address)} | ${code(a.what)} | ${values} | ${a.rule.until === undefined ? 'no end' : escapeMd(a.rule.until)} | ${a.rule.reason === undefined ? '—' : escapeMd(a.rule.reason)} <sub>(${escapeMd(a.rule.where)})</sub> |`,
    );
  }
  return lines.join('\n');
}

/** The two ways out of a drifted object, as commands to copy. */
function waysOutMd(ways: { readonly adopt: string; readonly revert?: string }): string {
  const keep = `- Keep the server's: ${code(ways.adopt)}`;
  return ways.revert === undefined ? `${keep} (apply cannot put it back)` : `${keep}\n- Restore git's: ${code(ways.revert)}`;
}

function valueMd(value: JsonValue | undefined, words?: ValueWords): string {
  if (value === undefined) return '<em>not set</em>';
  const text = valueText(value, words);
  return code(text.length > 300 ? `${text.slice(0, 300)}…` : text);
}

function code(text: string): string {
  return `<code>${escapeMd(text)}</code>`;
}
