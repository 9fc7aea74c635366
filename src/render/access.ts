import { ACCOUNT_TARGET } from '../plan/access-changes.js';
import type { AccessChange, AccessReport, MembershipScope } from '../plan/model.js';
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
  // Only a plan whose membership changes reach no folder it read has a report with no change.
  return parts.length > 0 ? parts.join(', ') : 'No one gains or loses access on the folders checked';
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
  const via =
    c.who.type === 'User' && c.via.length > 0 ? ` (via ${c.via.map((v) => (v.type === 'User' ? 'own entry' : `${groupWord} ${q(v.name)}`)).join(', ')})` : '';
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

/**
 * What the access report could not see of a plan's membership changes: the folders it did not
 * read. The plan reads the folders its manifests name (and the parents of new ones), the scope's
 * when pruning and the task steps', never the whole server, so a group may grant access elsewhere.
 */
export function membershipScopeSentence(scope: MembershipScope, q: Quote): string {
  const names = scope.groups.map(q).join(', ');
  const one = scope.groups.length === 1;
  const [group, grant, its] = one ? [`group ${names}`, 'grants', 'its'] : [`groups ${names}`, 'grant', 'their'];
  const read =
    scope.foldersRead === 0
      ? `This plan read no folder, so what ${group} ${grant} was not checked`
      : `Only the ${formatCount(scope.foldersRead)} ${scope.foldersRead === 1 ? 'folder' : 'folders'} this plan read (for its manifests, for the scope when pruning, for task steps) ${scope.foldersRead === 1 ? 'was' : 'were'} checked for what ${group} ${grant}`;
  return `${read}: on other folders, ${its} new and removed members may gain or lose access that is not shown here.`;
}

/** The sentences for groups of either server whose members could not be read, and for the folders a membership change may reach unseen (none: empty). */
function describeUnknownMembers(report: AccessReport, q: Quote): string[] {
  const out: string[] = [];
  if (report.membersUnknown.length > 0) out.push(membersUnknownSentence(report.membersUnknown, q));
  if (report.userGroupsUnknown !== undefined && report.userGroupsUnknown.length > 0) out.push(userGroupsUnknownSentence(report.userGroupsUnknown, q));
  if (report.membershipScope !== undefined) out.push(membershipScopeSentence(report.membershipScope, q));
  return out;
}

/**
 * One line of an access section: a change as it is (a folder's entries, an ACL), or what a
 * membership change brings one user: the same permissions gained and lost through the same
 * groups, over every folder concerned (issue 26: `bob gains readFiles, listFiles on 40 folders
 * (via group Partners)`). `sameAs`: an earlier line, of another user, names the same long list of
 * folders; this one points at it rather than repeat it.
 */
export type AccessLine =
  | { readonly kind: 'change'; readonly change: AccessChange }
  | { readonly kind: 'membership'; readonly changes: readonly AccessChange[]; readonly sameAs?: string };

/** The lines of an access section, in report order (a membership line where its first change is). */
export function accessLines(changes: readonly AccessChange[]): AccessLine[] {
  const lines: ({ kind: 'change'; change: AccessChange } | { kind: 'membership'; changes: AccessChange[]; sameAs?: string })[] = [];
  const byKey = new Map<string, AccessChange[]>();
  for (const c of changes) {
    if (c.memberships === undefined) {
      lines.push({ kind: 'change', change: c });
      continue;
    }
    const key = [
      c.service,
      c.who.type,
      c.who.name.toLowerCase(),
      c.gained.join(),
      c.lost.join(),
      ...c.via.map((v) => `${v.type}:${v.name.toLowerCase()}`),
    ].join('\u0000');
    const same = byKey.get(key);
    if (same !== undefined) same.push(c);
    else {
      const list = [c];
      byKey.set(key, list);
      lines.push({ kind: 'membership', changes: list });
    }
  }
  const listed = new Map<string, string>();
  for (const line of lines) {
    if (line.kind !== 'membership' || line.changes.length <= MAX_TARGETS) continue;
    const targets = line.changes.map((c) => c.target.toLowerCase()).join('\u0000');
    const first = listed.get(targets);
    if (first === undefined) listed.set(targets, line.changes[0]!.who.name);
    else line.sameAs = first;
  }
  return lines;
}

/** A membership line as a sentence, without its folders when there are many: `bob gains readFiles on 40 folders (via group Partners)`. */
export function describeMembershipLine(line: Extract<AccessLine, { kind: 'membership' }>, q: Quote): string {
  const first = line.changes[0]!;
  if (line.changes.length === 1) return describeAccessChange(first, q);
  const n = line.changes.length;
  const on = line.sameAs === undefined ? `${formatCount(n)} folders` : `the same ${formatCount(n)} folders as ${q(line.sameAs)}`;
  const verbs: string[] = [];
  if (first.gained.length > 0) verbs.push(`gains ${first.gained.map(q).join(', ')}`);
  if (first.lost.length > 0) verbs.push(`loses ${first.lost.map(q).join(', ')}`);
  const via = first.via.map((v) => (v.type === 'User' ? 'own entry' : `group ${q(v.name)}`)).join(', ');
  return `${accessWho(first, q)} ${verbs.join(' and ')} on ${on} (via ${via})`;
}

/** What to look at in a membership line: `grants admin`, `no access left` (on all its folders, or on how many). */
export function membershipLineFlags(line: Extract<AccessLine, { kind: 'membership' }>, q: Quote): string[] {
  const flagged = union(line.changes.map((c) => c.flagged));
  const removed = line.changes.filter((c) => c.removed).length;
  const out: string[] = [];
  if (flagged.length > 0) out.push(`grants ${flagged.map(q).join(', ')}`);
  if (removed > 0) out.push(removed === line.changes.length ? 'no access left' : `no access left on ${formatCount(removed)}`);
  return out;
}

/** The folders of a membership line for a terminal: all of a few, the first of many (none when it points at an earlier line). */
function membershipTargetsText(line: Extract<AccessLine, { kind: 'membership' }>, q: Quote): string {
  const n = line.changes.length;
  if (n === 1 || line.sameAs !== undefined) return '';
  const shown = line.changes.slice(0, MAX_TARGETS).map((c) => q(c.target));
  return `: ${shown.join(', ')}${n > shown.length ? `, and ${formatCount(n - shown.length)} more` : ''}`;
}

/** The access section of a terminal view (`heading`: the drift report names it otherwise): a heading line, then one line per change (`!` marks one to look at). */
export function renderAccessText(report: AccessReport, heading = 'Access changes'): string[] {
  const plain: Quote = (t) => escapeControl(t);
  const lines = [`${heading}: ${accessCountPhrase(report)}.`];
  for (const line of accessLines(report.changes)) {
    const [sentence, flags] =
      line.kind === 'change'
        ? [describeAccessChange(line.change, plain), accessFlags(line.change, plain)]
        : [`${describeMembershipLine(line, plain)}${membershipTargetsText(line, plain)}`, membershipLineFlags(line, plain)];
    lines.push(`  ${flags.length > 0 ? '!' : '-'} ${sentence}${flags.length > 0 ? ` [${flags.join('; ')}]` : ''}`);
  }
  for (const sentence of describeUnknownMembers(report, plain)) lines.push(`  ${sentence}`);
  return lines;
}

/** Markdown list items of the access section, one per change, flagged ones in bold. */
export function accessMarkdownItems(report: AccessReport, hint = DEFAULT_HINT): string[] {
  const md: Quote = (t) => escapeMd(t);
  return accessLines(report.changes).map((line) => {
    if (line.kind === 'membership') return membershipItem(line, hint);
    const c = line.change;
    const flags = accessFlags(c, (t) => `\`${t.replace(/`/g, '')}\``);
    return flags.length > 0 ? `- :warning: ${describeAccessChange(c, md)} — **${flags.join('; ')}**` : `- ${describeAccessChange(c, md)}`;
  });
}

/** Where the full list is when a comment names only part of it. */
const DEFAULT_HINT = 'the output of `mftops plan`';

/** Folders a membership item's `<details>` lists; the rest are counted with a pointer. */
const MAX_LISTED_FOLDERS = 100;

/**
 * A membership line as a markdown item: a few folders named after the sentence, many in a
 * collapsed `<details>` under it (an HTML block inside the item, so it needs no blank line and
 * keeps the list tight), none when an earlier item lists the same ones.
 */
function membershipItem(line: Extract<AccessLine, { kind: 'membership' }>, hint: string): string {
  const md: Quote = (t) => escapeMd(t);
  const tick: Quote = (t) => `\`${t.replace(/`/g, '')}\``;
  const flags = membershipLineFlags(line, tick);
  const alert = flags.length > 0 ? ':warning: ' : '';
  const n = line.changes.length;
  const few = n > 1 && n <= MAX_TARGETS && line.sameAs === undefined ? `: ${line.changes.map((c) => tick(c.target)).join(', ')}` : '';
  const item = `- ${alert}${describeMembershipLine(line, md)}${few}${flags.length > 0 ? ` — **${flags.join('; ')}**` : ''}`;
  if (n <= MAX_TARGETS || line.sameAs !== undefined) return item;
  const shown = line.changes.slice(0, MAX_LISTED_FOLDERS).map((c) => `<code>${escapeMd(c.target)}</code>`);
  const rest =
    n > shown.length ? `, and ${formatCount(n - shown.length)} more, listed in ${escapeMd(hint).replace(/&#96;([^&]*)&#96;/g, '<code>$1</code>')}` : '';
  return `${item}\n  <details><summary>The ${formatCount(n)} folders</summary>${shown.join(', ')}${rest}</details>`;
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
    const key = principalKey(c);
    const g = groups.get(key);
    if (g === undefined) groups.set(key, [c]);
    else g.push(c);
  }
  return [...groups.values()];
}

function principalKey(c: AccessChange): string {
  return `${c.service}\u0000${c.who.type}\u0000${c.who.name.toLowerCase()}`;
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
 * access removed (`loses all access on 60 folders: …`), a flagged permission granted. Principals
 * with the very same alert, more than `MERGE_ALERTS_OVER` of them (a group's new members all
 * gaining its `admin`), are one item naming them. Empty when there are none.
 */
export function accessAlertItems(report: AccessReport): string[] {
  const alerts = principalAlerts(report);
  const byWhat = new Map<string, string[]>();
  for (const a of alerts) byWhat.set(a.what, [...(byWhat.get(a.what) ?? []), a.who]);
  const out: string[] = [];
  for (const a of alerts) {
    const whos = byWhat.get(a.what)!;
    if (whos.length <= MERGE_ALERTS_OVER) out.push(`- ${a.who} **${a.verb}** ${a.rest}`);
    else if (whos[0] === a.who) {
      const shown = whos.slice(0, MAX_TARGETS);
      const names = `${shown.join(', ')}${whos.length > shown.length ? `, and ${formatCount(whos.length - shown.length)} more` : ''}`;
      out.push(`- ${formatCount(whos.length)} ${a.plural.noun} (${names}) **${a.plural.verb}** ${a.rest}`);
    }
  }
  return out;
}

/** The alerts `accessAlertItems` lists, counted one per principal and kind, merged or not (what the call-out's headline counts). */
export function accessAlertCount(report: AccessReport): number {
  return principalAlerts(report).length;
}

/** More principals than this with the same alert are one item. */
const MERGE_ALERTS_OVER = 3;

interface PrincipalAlert {
  readonly who: string;
  readonly verb: string;
  readonly plural: { readonly noun: string; readonly verb: string };
  /** On which targets. */
  readonly rest: string;
  /** What the alert says, but who: principals with the same one can be listed together. */
  readonly what: string;
}

function principalAlerts(report: AccessReport): PrincipalAlert[] {
  const md: Quote = (t) => escapeMd(t);
  const tick: Quote = (t) => `\`${t.replace(/`/g, '')}\``;
  const out: PrincipalAlert[] = [];
  for (const group of byPrincipal(report.changes)) {
    const first = group[0]!;
    const who = accessWho(first, md);
    const noun = first.who.type === 'User' ? 'users' : first.service === 'transfer' ? 'groups with unknown members' : 'user groups (members not shown)';
    const alert = (verb: string, pluralVerb: string, rest: string) =>
      out.push({ who, verb, plural: { noun, verb: pluralVerb }, rest, what: [first.service, first.who.type, verb, rest].join('\u0000') });
    const removed = group.filter((c) => c.removed);
    if (removed.length > 0) alert('loses all access', 'lose all access', `on ${targetsMd(removed)}`);
    const flagged = group.filter((c) => c.flagged.length > 0);
    if (flagged.length > 0) {
      const granted = union(flagged.map((c) => c.flagged))
        .map(tick)
        .join(', ');
      alert(`gains ${granted}`, `gain ${granted}`, `on ${targetsMd(flagged)}`);
    }
  }
  return out;
}

/**
 * The access section's markdown items, one per principal: a single change as its sentence; many
 * with what is gained and lost on how many targets, the first targets named. Flagged ones marked.
 */
export function accessGroupItems(report: AccessReport, hint = DEFAULT_HINT): string[] {
  // What a membership brings a user is worded per permission set (over the whole report, so a
  // long list of folders is written once); the rest per principal, as ever.
  const lines = new Map<string, string[]>();
  for (const line of accessLines(report.changes.filter((c) => c.memberships !== undefined))) {
    if (line.kind !== 'membership') continue;
    const key = principalKey(line.changes[0]!);
    lines.set(key, [...(lines.get(key) ?? []), membershipItem(line, hint)]);
  }
  return byPrincipal(report.changes).flatMap((changes) => {
    const fromEntries = changes.filter((c) => c.memberships === undefined);
    return [...(fromEntries.length > 0 ? [principalItem(fromEntries)] : []), ...(lines.get(principalKey(changes[0]!)) ?? [])];
  });
}

/** The principals an access section names: users, and groups whose members are unknown. */
export function accessPrincipalCount(report: AccessReport): number {
  return byPrincipal(report.changes).length;
}

/** One principal's access changes from folder entries or ACLs as one markdown item. */
function principalItem(group: readonly AccessChange[]): string {
  const md: Quote = (t) => escapeMd(t);
  const tick: Quote = (t) => `\`${t.replace(/`/g, '')}\``;
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
}

/** The sentences for groups whose members are unknown, and for the folders a membership change may reach unseen, in markdown (none: empty). */
export function unknownMembersMarkdown(report: AccessReport): string[] {
  return describeUnknownMembers(report, (t) => escapeMd(t));
}
