import type { PrivilegedAccountSettings, ServiceName } from '../config/model.js';
import type { AccountsLiveState, AccountsRead } from '../live/model.js';
import type { Manifest } from '../manifest/types.js';
import { compareText } from '../order.js';
import type { TransferUser } from '../services/transfer/types.js';
import { USER_PERMISSIONS } from '../vocabulary.js';
import { withDefined } from '../with-defined.js';
import type {
  AccountCheck,
  AccountService,
  AccountsReport,
  AllowedPrivilegedAccount,
  DriftReport,
  PrivilegedAccount,
  SignOnAccount,
  SignOnReport,
  UnmanagedOmitted,
} from './model.js';

/** The transfer permissions that make an account privileged, most powerful first. */
export const PRIVILEGED_PERMISSIONS: readonly string[] = ['SysAdmin', 'Admin', 'FileAdmin'];

const DAY_MS = 86_400_000;

/**
 * The lower-cased usernames whose permission git manages: the `User` manifests that set
 * `spec.permission` (the plan compares only the fields a manifest sets, so a manifest without
 * one would let a promotion to SysAdmin pass unseen by both the plan and the guard).
 */
export function declaredUsernames(manifests: readonly Manifest[]): ReadonlySet<string> {
  return new Set(manifests.filter((m) => m.kind === 'User' && m.spec.permission !== undefined).map((m) => m.name.toLowerCase()));
}

export interface AssessAccountsInput {
  readonly read: AccountsLiveState;
  /** Lower-cased usernames of the `User` manifests (`declaredUsernames`). */
  readonly declared: ReadonlySet<string>;
  readonly settings: PrivilegedAccountSettings;
  /** The account mftops signs in with, per service: allowed unmanaged. */
  readonly signedInAs: Partial<Record<ServiceName, string>>;
  readonly now: Date;
  /** Only part of the manifests was given: privileged accounts are not judged. */
  readonly omitted?: UnmanagedOmitted;
}

export interface AssessedAccounts {
  readonly report: AccountsReport;
  /**
   * Indexes of the `allowUnmanaged` entries that name no account of a service that was read (a
   * transfer user, an automation administrator): they allow nothing (MF420). Not judged when
   * privileged accounts are not.
   */
  readonly unmatchedAllowed: readonly number[];
}

/** The guard on privileged accounts and the sign-on report, from the accounts read (pure). */
export function assessAccounts(input: AssessAccountsInput): AssessedAccounts {
  const { read, settings } = input;
  const candidates = privilegedCandidates(read);
  const privileged: PrivilegedAccount[] = [];
  const allowed: AllowedPrivilegedAccount[] = [];
  if (input.omitted === undefined) {
    for (const c of candidates) {
      if (input.declared.has(c.username.toLowerCase()) && c.service === 'transfer') continue;
      const signedIn = input.signedInAs[c.service];
      const entry = settings.allowUnmanaged.find((a) => sameName(a.name, c.username) && (a.service === undefined || a.service === c.service));
      if (entry !== undefined) {
        allowed.push({ ...c.account, by: 'config', ...withDefined({ reason: entry.reason }), where: entry.where });
      } else if (signedIn !== undefined && sameName(signedIn, c.username)) {
        allowed.push({ ...c.account, by: 'sign-in' });
      } else {
        privileged.push({
          ...c.account,
          ...withDefined({ liveId: c.liveId }),
          creator: { state: 'unknown', why: c.service === 'transfer' ? 'no-audit-record' : 'not-asked' },
        });
      }
    }
  }
  const byAccount = (a: { service: string; username: string }, b: { service: string; username: string }) =>
    compareText(b.service, a.service) || compareText(a.username.toLowerCase(), b.username.toLowerCase());
  privileged.sort(byAccount);
  allowed.sort(byAccount);
  const checks = withDefined({
    transfer: unjudgedPermissions(read) ?? checkOf(read.transfer, (users) => users.length),
    automation: checkOf(read.automation, (g) => g.members.length),
  });
  const users = read.transfer?.state === 'read' ? read.transfer.value : undefined;
  const report: AccountsReport = {
    privileged,
    allowed,
    ...withDefined({ omitted: input.omitted }),
    checks,
    ...(users !== undefined ? { signOn: signOnReport(users, settings.staleSignOnDays, input.now) } : {}),
  };
  return { report, unmatchedAllowed: input.omitted === undefined ? unmatchedAllowed(read, settings) : [] };
}

/** The report with its accounts: an unmanaged privileged account makes it drift. */
export function withAccounts(report: DriftReport, accounts: AccountsReport): DriftReport {
  const { plan, ...rest } = report;
  return { ...rest, ...(accounts.privileged.length > 0 ? { status: 'drift' as const } : {}), accounts, plan };
}

interface Candidate {
  readonly service: AccountService;
  readonly username: string;
  readonly liveId?: string;
  readonly account: { readonly service: AccountService; readonly username: string; readonly role: string };
}

/** Every privileged account read, transfer first. */
function privilegedCandidates(read: AccountsLiveState): Candidate[] {
  const out: Candidate[] = [];
  if (read.transfer?.state === 'read') {
    for (const u of read.transfer.value) {
      const role = privilegedPermission(u);
      if (role !== undefined && u.username !== '')
        out.push({ service: 'transfer', username: u.username, liveId: u.id, account: { service: 'transfer', username: u.username, role } });
    }
  }
  if (read.automation?.state === 'read') {
    const { group, members } = read.automation.value;
    const seen = new Set<string>();
    for (const name of members) {
      if (seen.has(name.toLowerCase())) continue;
      seen.add(name.toLowerCase());
      out.push({ service: 'automation', username: name, account: { service: 'automation', username: name, role: group } });
    }
  }
  return out;
}

/**
 * The transfer check when some user's permission is none the references name (a number, another
 * word, none): those accounts cannot be judged, so the check says so instead of counting them as
 * unprivileged. The others are still judged.
 */
function unjudgedPermissions(read: AccountsLiveState): AccountCheck | undefined {
  if (read.transfer?.state !== 'read') return undefined;
  const odd = read.transfer.value.filter((u) => u.username !== '' && !KNOWN_PERMISSIONS.has(String(u.permission ?? '').toLowerCase()));
  if (odd.length === 0) return undefined;
  const shown = odd.slice(0, 3).map((u) => `${u.username}: ${u.permission === undefined ? 'none' : JSON.stringify(u.permission)}`);
  return {
    state: 'not-checked',
    message: `${odd.length} of ${read.transfer.value.length} accounts have a permission the transfer references do not name (${shown.join(', ')}${odd.length > 3 ? ', …' : ''}), so whether they are privileged is not judged`,
  };
}

const KNOWN_PERMISSIONS = new Set(['Anonymous', ...USER_PERMISSIONS].map((p) => p.toLowerCase()));

/** The user's permission when it is privileged, in its canonical spelling. */
function privilegedPermission(u: TransferUser): string | undefined {
  const permission = typeof u.permission === 'string' ? u.permission.toLowerCase() : undefined;
  return PRIVILEGED_PERMISSIONS.find((p) => p.toLowerCase() === permission);
}

function checkOf<T>(read: AccountsRead<T> | undefined, count: (value: T) => number): AccountCheck | undefined {
  if (read === undefined) return undefined;
  if (read.state === 'unreadable') return { state: 'not-checked', ...withDefined({ httpStatus: read.httpStatus }), message: read.message };
  return { state: 'checked', accounts: count(read.value) };
}

/** Entries that name no account on any service they apply to that was read. */
function unmatchedAllowed(read: AccountsLiveState, settings: PrivilegedAccountSettings): number[] {
  const transfer = read.transfer?.state === 'read' ? new Set(read.transfer.value.map((u) => u.username.toLowerCase())) : undefined;
  const automation = read.automation?.state === 'read' ? new Set(read.automation.value.members.map((m) => m.toLowerCase())) : undefined;
  const out: number[] = [];
  settings.allowUnmanaged.forEach((entry, i) => {
    const services: AccountService[] = entry.service === undefined ? ['transfer', 'automation'] : [entry.service];
    const known = services.map((s) => (s === 'transfer' ? transfer : automation)).filter((names) => names !== undefined);
    if (known.length > 0 && !known.some((names) => names.has(entry.name.toLowerCase()))) out.push(i);
  });
  return out;
}

/**
 * The transfer accounts that never signed on, and those whose last sign-on is more than
 * `staleDays` days before `now` (0: none), by username; templates left out.
 */
export function signOnReport(users: readonly TransferUser[], staleDays: number, now: Date): SignOnReport {
  const available = users.some((u) => typeof u.lastLoginStamp === 'string');
  const never: SignOnAccount[] = [];
  const stale: SignOnAccount[] = [];
  const unknown: SignOnAccount[] = [];
  if (available) {
    const people = users.filter((u) => u.status?.toLowerCase() !== 'template' && u.username !== '');
    for (const u of [...people].sort((a, b) => compareText(a.username.toLowerCase(), b.username.toLowerCase()))) {
      const base = {
        username: u.username,
        ...withDefined({ permission: u.permission, status: u.status !== undefined && u.status !== 'Active' ? u.status : undefined }),
      };
      const stamp = u.lastLoginStamp;
      // Absent beside users that have it: the server leaves out an empty field.
      if (stamp === undefined || stamp === '') {
        never.push(base);
        continue;
      }
      const time = canonicalTime(stamp);
      if (time === undefined) {
        unknown.push({ ...base, stamp });
        continue;
      }
      const days = Math.floor((now.getTime() - time) / DAY_MS);
      if (staleDays > 0 && days > staleDays) stale.push({ ...base, lastSignOn: new Date(time).toISOString(), days });
    }
    stale.sort((a, b) => (b.days ?? 0) - (a.days ?? 0) || compareText(a.username.toLowerCase(), b.username.toLowerCase()));
  }
  return { available, staleSignOnDays: staleDays, never, stale, unknown };
}

/** The time of a canonical stamp (normalize.ts `readSignOnStamp`: ISO 8601 UTC), or undefined for any other text. */
function canonicalTime(stamp: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(stamp)) return undefined;
  const time = Date.parse(stamp);
  return Number.isFinite(time) ? time : undefined;
}

function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
