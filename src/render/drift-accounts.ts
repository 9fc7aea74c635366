import type {
  AccountCheck,
  AccountCreator,
  AccountsReport,
  AccountService,
  AllowedPrivilegedAccount,
  PrivilegedAccount,
  SignOnAccount,
  SignOnReport,
} from '../drift/model.js';
import { escapeControl, escapeMd, formatCount } from './text.js';

// The privileged-account guard and the sign-on report of a drift report, in text and markdown
// (the words shared, the media apart).

/** How many accounts a markdown list shows before "and N more" (the JSON report holds them all). */
export const MARKDOWN_ACCOUNT_ROWS = 50;

/** `unmanaged privileged account: eve (Admin)`, `… mallory (automation administrator)`. */
export function privilegedHeadline(a: PrivilegedAccount): string {
  return `unmanaged privileged account: ${escapeControl(a.username)} (${roleText(a.service, a.role)})`;
}

function roleText(service: AccountService, role: string): string {
  switch (service) {
    case 'transfer':
      return escapeControl(role);
    case 'automation':
      return 'automation administrator';
    default: {
      const never: never = service;
      throw new Error(`unknown service ${String(never)}`);
    }
  }
}

/** `creator unknown: the transfer API shows no audit record`. */
export function creatorText(creator: AccountCreator): string {
  switch (creator.why) {
    case 'no-audit-record':
      return 'creator unknown: the transfer API shows no audit record';
    case 'not-asked':
      return 'creator unknown: the automation audit report does not say how it records user-group changes';
    default: {
      const never: never = creator.why;
      throw new Error(`unknown creator ${String(never)}`);
    }
  }
}

function serviceWhere(a: { service: AccountService; role: string }): string {
  return a.service === 'transfer' ? `transfer user, ${escapeControl(a.role)}` : `automation, user group ${escapeControl(a.role)}`;
}

/** `svc-backup (transfer user, Admin): allowed at mftops.yaml:14:11 — backup agent`. */
function allowedText(a: AllowedPrivilegedAccount): string {
  const why =
    a.by === 'sign-in'
      ? 'mftops signs in with it'
      : `allowed at ${escapeControl(a.where ?? 'mftops.yaml')}${a.reason !== undefined ? ` — ${escapeControl(a.reason)}` : ''}`;
  return `${escapeControl(a.username)} (${serviceWhere(a)}): ${why}`;
}

/** The notes on what was not checked: `automation administrators not checked: …`. */
export function accountCheckNotes(accounts: AccountsReport): string[] {
  const notes: string[] = [];
  if (accounts.omitted === 'partial-manifests') {
    notes.push('privileged accounts are not judged: only part of the manifests was given, and a User manifest among the others may declare them.');
  }
  const say = (what: string, check: AccountCheck | undefined) => {
    if (check?.state === 'not-checked') notes.push(`${what} not checked: ${escapeControl(check.message)}.`);
  };
  say('privileged transfer accounts and sign-on dates', accounts.checks.transfer);
  say('automation administrators', accounts.checks.automation);
  if (accounts.signOn !== undefined && !accounts.signOn.available) notes.push('sign-on report: the transfer server sends no last sign-on (lastLoginStamp).');
  return notes;
}

/** `3 unmanaged privileged accounts`, for the closing sentence; undefined when none. */
export function privilegedCountText(accounts: AccountsReport | undefined): string | undefined {
  const n = accounts?.privileged.length ?? 0;
  return n === 0 ? undefined : `${formatCount(n)} unmanaged privileged ${n === 1 ? 'account' : 'accounts'}`;
}

function signOnLine(a: SignOnAccount): string {
  const facts = [a.permission, a.status].filter((x) => x !== undefined).map(escapeControl);
  const last = a.lastSignOn !== undefined ? `last ${a.lastSignOn.slice(0, 10)}, ${formatCount(a.days ?? 0)} days ago` : undefined;
  const stamp = a.stamp !== undefined ? `lastLoginStamp ${escapeControl(JSON.stringify(a.stamp))}` : undefined;
  const all = [...facts, ...(last ? [last] : []), ...(stamp ? [stamp] : [])];
  return `${escapeControl(a.username)}${all.length > 0 ? ` (${all.join(', ')})` : ''}`;
}

interface SignOnList {
  readonly title: string;
  readonly accounts: readonly SignOnAccount[];
}

function signOnLists(s: SignOnReport): SignOnList[] {
  return [
    { title: 'Never signed on', accounts: s.never },
    ...(s.staleSignOnDays > 0 ? [{ title: `No sign-on for more than ${formatCount(s.staleSignOnDays)} days`, accounts: s.stale }] : []),
    { title: 'Last sign-on not readable', accounts: s.unknown },
  ].filter((l) => l.accounts.length > 0);
}

// ------------------------------------------------------------------------------------------ text

/** The unmanaged privileged accounts and the allowed ones, for the terminal; empty when there are none. */
export function privilegedAccountsText(accounts: AccountsReport | undefined, paint: (code: string, text: string) => string): string[] {
  if (accounts === undefined) return [];
  const lines: string[] = [];
  if (accounts.privileged.length > 0) {
    lines.push('', paint('1', 'Privileged accounts no manifest declares and mftops.yaml does not allow (privilegedAccounts.allowUnmanaged):'));
    for (const a of accounts.privileged) lines.push(`  ${paint('31', '!')} ${privilegedHeadline(a)}`, `      ${creatorText(a.creator)}`);
  }
  if (accounts.allowed.length > 0) {
    lines.push('', 'Privileged accounts allowed unmanaged:');
    for (const a of accounts.allowed) lines.push(`  ${allowedText(a)}`);
  }
  return lines;
}

/** The sign-on report for the terminal; empty when nothing is listed. */
export function signOnText(accounts: AccountsReport | undefined, paint: (code: string, text: string) => string): string[] {
  const lists = accounts?.signOn ? signOnLists(accounts.signOn) : [];
  if (lists.length === 0) return [];
  const lines = ['', paint('1', 'Sign-on report (transfer accounts; a report, not drift):')];
  for (const list of lists) {
    lines.push(`  ${list.title} (${formatCount(list.accounts.length)}):`);
    for (const a of list.accounts) lines.push(`    ${signOnLine(a)}`);
  }
  return lines;
}

// -------------------------------------------------------------------------------------- markdown

/** The markdown block of the unmanaged and allowed privileged accounts; undefined when there are none. */
export function privilegedAccountsMarkdown(accounts: AccountsReport | undefined): string | undefined {
  if (accounts === undefined || (accounts.privileged.length === 0 && accounts.allowed.length === 0)) return undefined;
  const lines: string[] = [];
  if (accounts.privileged.length > 0) {
    lines.push(
      '### ⚠️ Unmanaged privileged accounts',
      '',
      'Administrators no `User` manifest declares and `privilegedAccounts.allowUnmanaged` in mftops.yaml does not allow: declare them, allow them, or remove them.',
      '',
      '| Account | Service | Permission | Created by |',
      '|:--|:--|:--|:--|',
    );
    for (const a of accounts.privileged.slice(0, MARKDOWN_ACCOUNT_ROWS)) {
      const role = a.service === 'transfer' ? code(a.role) : `administrator (user group ${code(a.role)})`;
      lines.push(`| ${code(a.username)} | ${a.service} | ${role} | ${escapeMd(creatorText(a.creator))} |`);
    }
    lines.push(...more(accounts.privileged.length));
  }
  if (accounts.allowed.length > 0) {
    if (lines.length > 0) lines.push('');
    lines.push('<details><summary>Privileged accounts allowed unmanaged (' + formatCount(accounts.allowed.length) + ')</summary>', '');
    for (const a of accounts.allowed.slice(0, MARKDOWN_ACCOUNT_ROWS)) lines.push(`- ${escapeMd(allowedText(a))}`);
    lines.push(...more(accounts.allowed.length), '', '</details>');
  }
  return lines.join('\n');
}

/** The markdown block of the sign-on report; undefined when nothing is listed. */
export function signOnMarkdown(accounts: AccountsReport | undefined): string | undefined {
  const lists = accounts?.signOn ? signOnLists(accounts.signOn) : [];
  if (lists.length === 0) return undefined;
  const lines = ['### Sign-on report', '', 'Transfer accounts by last sign-on, for review: a report, not drift.'];
  for (const list of lists) {
    lines.push('', `<details><summary>${list.title} (${formatCount(list.accounts.length)})</summary>`, '');
    for (const a of list.accounts.slice(0, MARKDOWN_ACCOUNT_ROWS)) lines.push(`- ${escapeMd(signOnLine(a))}`);
    lines.push(...more(list.accounts.length), '', '</details>');
  }
  return lines.join('\n');
}

function more(total: number): string[] {
  return total > MARKDOWN_ACCOUNT_ROWS ? ['', `…and ${formatCount(total - MARKDOWN_ACCOUNT_ROWS)} more in the JSON report.`] : [];
}

function code(text: string): string {
  return `<code>${escapeMd(text)}</code>`;
}
