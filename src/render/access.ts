import type { AccessChange, AccessReport } from '../plan/model.js';
import { escapeControl, escapeMd, formatCount } from './text.js';

/**
 * The access section every plan and drift view shows (issue 16): who gains or loses what, as
 * sentences. Text and markdown differ only in how a name is quoted, which the caller passes.
 */

/** What a drift report calls its access section: gains and losses read git → server. */
export const DRIFT_ACCESS_HEADING = 'Access on the server compared with git';

/** `3 users gain access, 2 lose access`; groups whose members are unknown are counted apart. */
export function accessCountPhrase(report: AccessReport): string {
  const gain = new Set<string>();
  const lose = new Set<string>();
  const groups = new Set<string>();
  for (const c of report.changes) {
    if (c.who.type !== 'User') {
      groups.add(`${c.service}\u0000${c.who.name.toLowerCase()}`);
      continue;
    }
    if (c.gained.length > 0) gain.add(c.who.name.toLowerCase());
    if (c.lost.length > 0) lose.add(c.who.name.toLowerCase());
  }
  const parts: string[] = [];
  if (gain.size > 0 || lose.size > 0) parts.push(`${formatCount(gain.size)} ${gain.size === 1 ? 'user gains' : 'users gain'} access`, `${formatCount(lose.size)} ${lose.size === 1 ? 'loses' : 'lose'} access`);
  if (groups.size > 0) parts.push(`${formatCount(groups.size)} ${groups.size === 1 ? 'group' : 'groups'} with unknown members ${groups.size === 1 ? 'changes' : 'change'}`);
  return parts.join(', ');
}

/** How a renderer shows a name (a user, a group, a folder, a permission). */
export type Quote = (text: string) => string;

/**
 * One change as a sentence: `bob loses readFiles, listFiles on /A/Out (via group Auditors)`,
 * `group Ops (members unknown) gains share on /A`, `user group Operators (members not shown)
 * gains TaskRun on resource group Payroll`.
 */
export function describeAccessChange(c: AccessChange, q: Quote): string {
  const who = c.who.type === 'User' ? q(c.who.name) : c.service === 'transfer' ? `group ${q(c.who.name)} (members unknown)` : `user group ${q(c.who.name)} (members not shown)`;
  const verbs: string[] = [];
  if (c.gained.length > 0) verbs.push(`gains ${c.gained.map(q).join(', ')}`);
  if (c.lost.length > 0) verbs.push(`loses ${c.lost.map(q).join(', ')}`);
  const on = c.service === 'transfer' ? q(c.target) : `resource group ${q(c.target)}`;
  const groupWord = c.service === 'transfer' ? 'group' : 'user group';
  const via = c.who.type === 'User' ? ` (via ${c.via.map((v) => (v.type === 'User' ? 'own entry' : `${groupWord} ${q(v.name)}`)).join(', ')})` : '';
  return `${who} ${verbs.join(' and ')} on ${on}${via}`;
}

/** What a reviewer must look at in a change: a flagged grant (`admin`, `TaskAddEditDelete`…), a principal removed. */
export function accessFlags(c: AccessChange, q: Quote): string[] {
  const out: string[] = [];
  if (c.flagged.length > 0) out.push(`grants ${c.flagged.map(q).join(', ')}`);
  if (c.removed) out.push('no access left');
  return out;
}

/** The sentence for groups whose members could not be read. */
export function membersUnknownSentence(groups: readonly string[], q: Quote): string {
  const names = groups.map(q).join(', ');
  return groups.length === 1
    ? `The members of group ${names} could not be read from the transfer server: its own change is shown instead.`
    : `The members of groups ${names} could not be read from the transfer server: their own changes are shown instead.`;
}

/** The sentence for automation user groups whose members could not be read. */
export function userGroupsUnknownSentence(groups: readonly string[], q: Quote): string {
  const names = groups.map(q).join(', ');
  return groups.length === 1
    ? `The members of user group ${names} could not be read from the automation server (the account may not list user groups, or the server lists no members): its own change is shown instead.`
    : `The members of user groups ${names} could not be read from the automation server (the account may not list user groups, or the server lists no members): their own changes are shown instead.`;
}

/** The sentences for groups of either server whose members could not be read (none: empty). */
function describeUnknownMembers(report: AccessReport, q: Quote): string[] {
  const out: string[] = [];
  if (report.membersUnknown.length > 0) out.push(membersUnknownSentence(report.membersUnknown, q));
  if (report.userGroupsUnknown !== undefined && report.userGroupsUnknown.length > 0) out.push(userGroupsUnknownSentence(report.userGroupsUnknown, q));
  return out;
}

/** The access section of a terminal view (`heading`: the drift report names it otherwise): a heading line, then one line per change (`!` marks one to look at). */
export function renderAccessText(report: AccessReport, heading = 'Access changes'): string[] {
  const plain: Quote = (t) => escapeControl(t);
  const lines = [`${heading}: ${accessCountPhrase(report)}.`];
  for (const c of report.changes) {
    const flags = accessFlags(c, plain);
    lines.push(`  ${flags.length > 0 ? '!' : '-'} ${describeAccessChange(c, plain)}${flags.length > 0 ? ` [${flags.join('; ')}]` : ''}`);
  }
  for (const sentence of describeUnknownMembers(report, plain)) lines.push(`  ${sentence}`);
  return lines;
}

/** Markdown list items of the access section, one per change, flagged ones in bold. */
export function accessMarkdownItems(report: AccessReport): string[] {
  const md: Quote = (t) => escapeMd(t);
  return report.changes.map((c) => {
    const flags = accessFlags(c, (t) => `\`${t.replace(/`/g, '')}\``);
    return flags.length > 0 ? `- :warning: ${describeAccessChange(c, md)} — **${flags.join('; ')}**` : `- ${describeAccessChange(c, md)}`;
  });
}

/** The heading of the markdown access section (with the groups whose members are unknown). */
export function accessMarkdownHead(report: AccessReport, heading = 'Access changes'): string {
  const head = `### ${heading}\n\n${escapeMd(accessCountPhrase(report))}.`;
  return [head, ...describeUnknownMembers(report, (t) => escapeMd(t))].join(' ');
}
