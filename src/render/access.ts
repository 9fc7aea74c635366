import { ACCOUNT_TARGET } from '../plan/access-changes.js';
import type { AccessChange, AccessReport } from '../plan/model.js';
import { escapeControl, escapeMd, formatCount } from './text.js';

/**
 * The access section every plan and drift view shows (issue 16): who gains or loses what, as
 * sentences. Text and markdown differ only in how a name is quoted, which the caller passes.
 */

/** What a drift report calls its access section: gains and losses read git → server. */
export const DRIFT_ACCESS_HEADING = 'Access on the server compared with git';

/**
 * `3 users gain access, 2 lose access`, `1 user loses access`, `1 group with unknown members loses
 * access`: only counts that are not zero, so the phrase agrees with the lines under it; groups
 * whose members are unknown are counted apart, by what their own change does.
 */
export function accessCountPhrase(report: AccessReport): string {
  const users = { gain: new Set<string>(), lose: new Set<string>() };
  const groups = { gain: new Set<string>(), lose: new Set<string>(), all: new Set<string>() };
  for (const c of report.changes) {
    const key = `${c.service}\u0000${c.who.name.toLowerCase()}`;
    const into = c.who.type === 'User' ? users : groups;
    if (c.who.type !== 'User') groups.all.add(key);
    if (c.gained.length > 0) into.gain.add(key);
    if (c.lost.length > 0) into.lose.add(key);
  }
  const parts: string[] = [];
  const ug = users.gain.size;
  const ul = users.lose.size;
  if (ug > 0) parts.push(`${formatCount(ug)} ${ug === 1 ? 'user gains' : 'users gain'} access`);
  if (ul > 0)
    parts.push(ug > 0 ? `${formatCount(ul)} ${ul === 1 ? 'loses' : 'lose'} access` : `${formatCount(ul)} ${ul === 1 ? 'user loses' : 'users lose'} access`);
  const n = groups.all.size;
  if (n > 0) {
    const g = groups.gain.size;
    const l = groups.lose.size;
    const noun = `${formatCount(n)} ${n === 1 ? 'group' : 'groups'} with unknown members`;
    if (g > 0 && l === 0) parts.push(`${noun} ${n === 1 ? 'gains' : 'gain'} access`);
    else if (l > 0 && g === 0) parts.push(`${noun} ${n === 1 ? 'loses' : 'lose'} access`);
    else
      parts.push(
        `${noun} ${n === 1 ? 'changes' : 'change'} (${formatCount(g)} ${g === 1 ? 'gains' : 'gain'}, ${formatCount(l)} ${l === 1 ? 'loses' : 'lose'} access)`,
      );
  }
  return parts.length > 0 ? parts.join(', ') : 'no one gains or loses access';
}

/** How a renderer shows a name (a user, a group, a folder, a permission). */
export type Quote = (text: string) => string;

/**
 * One change as a sentence: `bob loses readFiles, listFiles on /A/Out (via group Auditors)`,
 * `group Ops (members unknown) gains share on /A`, `user group Operators (members not shown)
 * gains TaskRun on resource group Payroll`.
 */
export function describeAccessChange(c: AccessChange, q: Quote): string {
  const who = accessWho(c, q);
  const verbs: string[] = [];
  if (c.gained.length > 0) verbs.push(`gains ${c.gained.map(q).join(', ')}`);
  if (c.lost.length > 0) verbs.push(`loses ${c.lost.map(q).join(', ')}`);
  const on = c.service === 'transfer' ? q(c.target) : `resource group ${q(c.target)}`;
  const groupWord = c.service === 'transfer' ? 'group' : 'user group';
  // A permission-level change has no entry it comes through.
  const via = c.who.type === 'User' && c.via.length > 0 ? ` (via ${c.via.map((v) => (v.type === 'User' ? 'own entry' : `${groupWord} ${q(v.name)}`)).join(', ')})` : '';
  return `${who} ${verbs.join(' and ')} on ${on}${via}`;
}

/** Who an access change is about: `bob`, `group Ops (members unknown)`, `user group Operators (members not shown)`. */
export function accessWho(c: Pick<AccessChange, 'who' | 'service'>, q: Quote): string {
  return c.who.type === 'User'
    ? q(c.who.name)
    : c.service === 'transfer'
      ? `group ${q(c.who.name)} (members unknown)`
      : `user group ${q(c.who.name)} (members not shown)`;
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

/** The changes of one principal (a user, or a group whose members are unknown) on one server, in report order. */
function byPrincipal(changes: readonly AccessChange[]): AccessChange[][] {
  const groups = new Map<string, AccessChange[]>();
  for (const c of changes) {
    const key = `${c.service}\u0000${c.who.type}\u0000${c.who.name.toLowerCase()}`;
    const g = groups.get(key);
    if (g === undefined) groups.set(key, [c]);
    else g.push(c);
  }
  return [...groups.values()];
}

/** Targets named per line; the rest are counted. */
const MAX_TARGETS = 10;

function targetsMd(all: readonly AccessChange[]): string {
  // A permission-level change is on the account, not on a folder: named apart, never counted as one.
  const account = all.some((c) => c.target === ACCOUNT_TARGET);
  const changes = all.filter((c) => c.target !== ACCOUNT_TARGET);
  if (changes.length === 0) return ACCOUNT_TARGET;
  return `${account ? `${ACCOUNT_TARGET} and ` : ''}${objectTargetsMd(changes)}`;
}

function objectTargetsMd(changes: readonly AccessChange[]): string {
  const first = changes[0]!;
  const noun = first.service === 'transfer' ? (changes.length === 1 ? 'folder' : 'folders') : changes.length === 1 ? 'resource group' : 'resource groups';
  const shown = changes.slice(0, MAX_TARGETS).map((c) => `\`${c.target.replace(/`/g, '')}\``);
  const rest = changes.length - shown.length;
  return `${formatCount(changes.length)} ${noun}: ${shown.join(', ')}${rest > 0 ? `, and ${formatCount(rest)} more` : ''}`;
}

function union(lists: readonly (readonly string[])[]): string[] {
  return [...new Set(lists.flat())];
}

/**
 * The access changes a reviewer must look at, one markdown item per principal and kind: all
 * access removed (`loses all access on 60 folders: …`), a flagged permission granted. Empty when
 * there are none.
 */
export function accessAlertItems(report: AccessReport): string[] {
  const md: Quote = (t) => escapeMd(t);
  const tick: Quote = (t) => `\`${t.replace(/`/g, '')}\``;
  const out: string[] = [];
  for (const group of byPrincipal(report.changes)) {
    const who = accessWho(group[0]!, md);
    const removed = group.filter((c) => c.removed);
    if (removed.length > 0) out.push(`- ${who} **loses all access** on ${targetsMd(removed)}`);
    const flagged = group.filter((c) => c.flagged.length > 0);
    if (flagged.length > 0)
      out.push(
        `- ${who} **gains ${union(flagged.map((c) => c.flagged))
          .map(tick)
          .join(', ')}** on ${targetsMd(flagged)}`,
      );
  }
  return out;
}

/**
 * The access section's markdown items, one per principal: a single change as its sentence; many
 * with what is gained and lost on how many targets, the first targets named. Flagged ones marked.
 */
export function accessGroupItems(report: AccessReport): string[] {
  const md: Quote = (t) => escapeMd(t);
  const tick: Quote = (t) => `\`${t.replace(/`/g, '')}\``;
  return byPrincipal(report.changes).map((group) => {
    const alert = group.some((c) => c.flagged.length > 0 || c.removed) ? ':warning: ' : '';
    if (group.length === 1) {
      const c = group[0]!;
      const flags = accessFlags(c, tick);
      return `- ${alert}${describeAccessChange(c, md)}${flags.length > 0 ? ` — **${flags.join('; ')}**` : ''}`;
    }
    const gains = group.filter((c) => c.gained.length > 0);
    const losses = group.filter((c) => c.lost.length > 0);
    const verbs: string[] = [];
    if (gains.length > 0)
      verbs.push(
        `gains ${union(gains.map((c) => c.gained))
          .map(md)
          .join(', ')} on ${targetsMd(gains)}`,
      );
    if (losses.length > 0)
      verbs.push(
        `loses ${union(losses.map((c) => c.lost))
          .map(md)
          .join(', ')} on ${targetsMd(losses)}`,
      );
    const removed = group.filter((c) => c.removed).length;
    const flagged = union(group.map((c) => c.flagged));
    const flags = [
      ...(flagged.length > 0 ? [`grants ${flagged.map(tick).join(', ')}`] : []),
      ...(removed > 0 ? [`no access left on ${formatCount(removed)}`] : []),
    ];
    return `- ${alert}${accessWho(group[0]!, md)} (${formatCount(group.length)} changes) ${verbs.join('; ')}${flags.length > 0 ? ` — **${flags.join('; ')}**` : ''}`;
  });
}

/** The sentences for groups whose members are unknown, in markdown (none: empty). */
export function unknownMembersMarkdown(report: AccessReport): string[] {
  return describeUnknownMembers(report, (t) => escapeMd(t));
}
