import { credentialSectionLines } from './credential-expiry.js';
import type { DriftedObject, DriftReport } from '../drift/model.js';
import {
  attributionNotes,
  attributionText,
  comparedSentence,
  driftedHeadline,
  driftedWhy,
  driftSentence,
  driftSymbol,
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
import { escapeControl } from './text.js';
import { withDefined } from '../with-defined.js';
import { transferChecksText } from './plan-text.js';
import { DRIFT_ACCESS_HEADING, renderAccessText } from './access.js';
import { policyText } from './policy.js';
import { privilegedAccountsText, signOnText } from './drift-accounts.js';

export interface DriftTextOptions {
  /** ANSI colour; the caller decides (TTY, NO_COLOR, --no-color). */
  readonly color: boolean;
  /** The `--config` the run was given: the printed commands name it, so that they run as printed. */
  readonly config?: string;
}

/**
 * The terminal drift report: one block per drifted object with each field as `git → server`,
 * then unmanaged objects, acknowledged differences, the notes on who changed what, and a closing
 * sentence.
 */
export function renderDriftText(report: DriftReport, options: DriftTextOptions): string {
  const paint = (code: string, text: string) => (options.color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const command = withDefined({ config: options.config });
  const lines = [`mftops drift for environment ${quote(report.environment)}: ${comparedSentence(report)}`];
  if (report.unmanagedOmitted !== undefined) lines.push(unmanagedOmittedSentence(report.unmanagedOmitted));
  lines.push(...policyText(report.policy, 'drift'));
  lines.push(...privilegedAccountsText(report.accounts, paint));
  if (report.access !== undefined) lines.push('', ...renderAccessText(report.access, DRIFT_ACCESS_HEADING));
  if (report.drifted.length > 0) {
    lines.push('', paint('1', 'Drifted (values read git → server):'));
    for (const d of report.drifted) lines.push('', ...renderDrifted(d, paint), ...waysOutText(waysOut(report.environment, d, command)));
  }
  if (report.unmanaged.length > 0) {
    lines.push('', paint('1', 'Unmanaged (in scope, named by no manifest):'));
    for (const u of report.unmanaged) {
      const pruned = u.pruned ? ' [pruned: apply --allow-delete deletes it]' : '';
      lines.push(`  ${paint('35', '?')} ${escapeControl(u.address)}: ${unmanagedText(u)}${pruned}`);
      if (u.lastChange) lines.push(`      last change: ${attributionText(u.lastChange)}`);
      if (u.expired) lines.push(`      # ${expiredText(u.expired)}`);
      lines.push(...waysOutText(unmanagedWaysOut(report.environment, u, command), '      '));
    }
  }
  if (report.acknowledged.length > 0) {
    lines.push('', paint('1', 'Acknowledged (not drift):'));
    for (const a of report.acknowledged) {
      const values = a.expected !== undefined || a.actual !== undefined ? `: ${valueText(a.expected)} → ${valueText(a.actual)}` : '';
      const until = a.rule.until === undefined ? '' : ` until ${escapeControl(a.rule.until)}`;
      const reason = a.rule.reason === undefined ? '' : ` — ${escapeControl(a.rule.reason)}`;
      lines.push(`  ${escapeControl(a.address)} ${escapeControl(a.what)}${values} (${escapeControl(a.rule.where)}${until})${reason}`);
    }
  }
  lines.push(...transferChecksText(report.plan.transferChecks));
  lines.push(...signOnText(report.accounts, paint));
  if (report.credentials !== undefined)
    lines.push('', paint('1', 'Keys and certificates (a report, not drift):'), ...credentialSectionLines(report.credentials, '  ', ''));
  for (const note of attributionNotes(report)) lines.push('', `Note: ${note}`);
  lines.push('', paint('1', driftSentence(report)));
  return `${lines.join('\n')}\n`;
}

/** One drifted object as the terminal report shows it, without colour: its headline, then its indented details. */
export function renderDriftedText(d: DriftedObject): string[] {
  return renderDrifted(d, (_code, text) => text);
}

function renderDrifted(d: DriftedObject, paint: (code: string, text: string) => string): string[] {
  const lines = [`${paint(d.drift === 'changed' ? '33' : '31', driftSymbol(d.drift))} ${paint('1', driftedHeadline(d))}`];
  const indent = '    ';
  if (d.lastChange) lines.push(`${indent}last change: ${attributionText(d.lastChange)}`);
  const why = driftedWhy(d);
  if (why !== undefined && d.drift !== 'changed') lines.push(`${indent}# ${escapeControl(why)}`);
  if (d.source) lines.push(`${indent}# declared at ${escapeControl(d.source.file)}:${d.source.line}`);
  if (d.expired) lines.push(`${indent}# ${expiredText(d.expired)}`);
  for (const f of d.fields) {
    const replace = f.forcesReplace ? ' # needs a replace' : '';
    lines.push(
      `${indent}${escapeControl(f.path)}: ${valueText(f.expected, sideWords(f, 'expected'))} → ${valueText(f.actual, sideWords(f, 'actual'))}${replace}`,
    );
    if (f.expired) lines.push(`${indent}  # ${expiredText(f.expired)}`);
  }
  for (const e of d.entries) {
    lines.push(`${indent}${e.principal.type} ${quote(e.principal.name)}: ${entryPhrase(e)}: ${grantText(e.expected)} → ${grantText(e.actual)}`);
    if (e.expired) lines.push(`${indent}  # ${expiredText(e.expired)}`);
  }
  return lines;
}

/** The two ways out of a drifted object, one command a line. */
function waysOutText(ways: { readonly adopt: string; readonly revert?: string }, indent = '    '): string[] {
  return [
    `${indent}keep the server's: ${escapeControl(ways.adopt)}`,
    ...(ways.revert === undefined ? [] : [`${indent}restore git's:     ${escapeControl(ways.revert)}`]),
  ];
}

function quote(text: string): string {
  return escapeControl(JSON.stringify(text));
}
