import { isRecord } from '../is-record.js';
import type { Credential, CredentialKind, CredentialStanding, CredentialUser, ExpiryReport, ExpiryState } from './model.js';

// Pure: which hosts and tasks use each credential, and where each stands on a given day.

const DAY_MS = 86_400_000;

/**
 * A task or host as the clients answer them (src/services/automation/types.ts `Task`, `Host`),
 * or a task's manifest `spec`: only its fields are read. Typed here so that this pure area does
 * not import the services.
 */
export interface ObjectFields {
  readonly ID?: unknown;
  readonly Name?: unknown;
  readonly [field: string]: unknown;
}

/** Default of `--expiring-within`: a month's notice. */
export const DEFAULT_EXPIRING_WITHIN_DAYS = 30;

/** The key of a credential in the maps below (ids are unique per list, not across lists). */
export function credentialKey(c: Pick<Credential, 'kind' | 'id'>): string {
  return `${c.kind}:${c.id.toLowerCase()}`;
}

/** Fields of hosts and steps that name a credential, by the end of their name (A §2.5, §2.6). */
const SSH_KEY_FIELD = /clientkeyid$/i;
const CERT_SHA1_FIELD = /certsha1$/i;
const CERT_SUBJECT_FIELD = /certsubject$/i;
/** A field or parameter that may name a PGP key (the reference shows no PGP step or field). */
const PGP_FIELD = /pgp|recipient|signer|keyid$|^key$/i;

/**
 * The hosts and tasks that use each credential, by `credentialKey`. A host uses what its fields
 * name (`DefClientKeyID`, `DefClientCertSHA1`/`…Subject`, AS2's `DecryptCertSHA1`…); a task what
 * its steps name at any depth (`ClientKeyID`, `ClientCertSHA1`/`…Subject`), what its steps' hosts
 * give by default (a step with `UseDefClientKey`/`UseDefClientCert` = 1, or with no key or
 * certificate of its own), and a PGP key named by a parameter or field whose name says PGP,
 * recipient, signer or key id (by the key's ID, key id, fingerprint or name).
 */
export function findCredentialUsers(
  credentials: readonly Credential[],
  tasks: readonly ObjectFields[],
  hosts: readonly ObjectFields[],
): ReadonlyMap<string, readonly CredentialUser[]> {
  const out = new Map<string, CredentialUser[]>();
  const add = (c: Credential, user: CredentialUser): void => {
    const list = out.get(credentialKey(c)) ?? [];
    if (!list.some((u) => u.type === user.type && u.id === user.id && u.field === user.field)) list.push(user);
    out.set(credentialKey(c), list);
  };
  const matches = (field: string, value: unknown): Credential[] => credentials.filter((c) => namesCredential(c, field, value));
  const hostById = new Map(hosts.map((h) => [String(h.ID), h]));
  const hostByName = new Map(hosts.map((h) => [String(h.Name).toLowerCase(), h]));
  for (const h of hosts) {
    for (const [field, value] of Object.entries(h))
      for (const c of matches(field, value)) add(c, { type: 'host', id: String(h.ID), name: String(h.Name), field });
  }
  for (const t of tasks) {
    const user = (field: string): CredentialUser => ({ type: 'task', id: String(t.ID ?? ''), name: String(t.Name ?? ''), field });
    walk(t, '', (owner, where, field, value) => {
      for (const c of matches(field, value)) add(c, user(where === '' ? field : `${where}.${field}`));
      // Wire steps name their host by id (`HostID`), manifests by name (`Host`).
      if (field === 'HostID' || field === 'Host') {
        const host = field === 'HostID' ? hostById.get(String(value)) : hostByName.get(String(value).toLowerCase());
        if (host === undefined) return;
        for (const [hostField, hostValue] of Object.entries(host)) {
          for (const c of matches(hostField, hostValue)) {
            if (c.kind !== 'pgp' && usesHostDefault(owner, c.kind))
              add(c, user(`${where === '' ? '' : `${where}.`}${field} (default ${hostField} of host ${String(host.Name)})`));
          }
        }
      }
    });
  }
  return out;
}

/** Whether a step takes its host's default key (ssh) or certificate (ssl). */
function usesHostDefault(step: Readonly<Record<string, unknown>>, kind: 'ssh' | 'ssl'): boolean {
  const flag = step[kind === 'ssh' ? 'UseDefClientKey' : 'UseDefClientCert'];
  if (flag === 1 || flag === true) return true;
  if (flag === 0 || flag === false) return false;
  const own = Object.entries(step).filter(([k]) => (kind === 'ssh' ? SSH_KEY_FIELD.test(k) : CERT_SHA1_FIELD.test(k) || CERT_SUBJECT_FIELD.test(k)));
  return own.every(([, v]) => v === undefined || v === null || v === '');
}

/** Calls `visit` for every field of every object in `value` (parameters as `Parameters.NAME`), with the object holding it. */
function walk(value: unknown, where: string, visit: (owner: Readonly<Record<string, unknown>>, where: string, field: string, value: unknown) => void): void {
  if (Array.isArray(value)) {
    for (const x of value) walk(x, where, visit);
    return;
  }
  if (!isRecord(value)) return;
  for (const [k, v] of Object.entries(value)) {
    if (k === 'Parameters' && isRecord(v)) {
      for (const [name, p] of Object.entries(v)) visit(value, where, `Parameters.${name}`, isRecord(p) ? p.value : p);
      continue;
    }
    if (isRecord(v) || Array.isArray(v)) walk(v, /^[A-Z]/.test(k) && k !== 'Schedules' ? (where === '' ? k : `${where}.${k}`) : where, visit);
    else visit(value, where, k, v);
  }
}

function namesCredential(c: Credential, field: string, value: unknown): boolean {
  if (typeof value !== 'string' && typeof value !== 'number') return false;
  const text = String(value).trim().toLowerCase();
  if (text === '') return false;
  const name = field.slice(field.lastIndexOf('.') + 1);
  switch (c.kind) {
    case 'ssh':
      return SSH_KEY_FIELD.test(name) && text === c.id.toLowerCase();
    case 'ssl':
      if (CERT_SHA1_FIELD.test(name)) return c.fingerprint !== undefined && hex(text) === hex(c.fingerprint);
      if (CERT_SUBJECT_FIELD.test(name)) return c.subject !== undefined && subjectOf(text) === subjectOf(c.subject);
      return false;
    case 'pgp':
      if (SSH_KEY_FIELD.test(name) || !PGP_FIELD.test(name)) return false;
      return [c.id, c.keyId, c.fingerprint, c.name].some((x) => x !== undefined && x.toLowerCase() === text);
    default: {
      const never: never = c.kind;
      throw new Error(`unknown credential kind ${String(never)}`);
    }
  }
}

function hex(text: string): string {
  return text.replace(/[\s:]/g, '').toLowerCase();
}

function subjectOf(text: string): string {
  return text.trim().toLowerCase().replace(/^cn=/, '');
}

/** Where one credential stands at `now`: `expiring` when it expires within `withinDays` days. */
export function standingOf(c: Credential, now: Date, withinDays: number, users: readonly CredentialUser[] = []): CredentialStanding {
  switch (c.expiry.kind) {
    case 'never':
      return { credential: c, state: 'never', users };
    case 'unreadable':
      return { credential: c, state: 'unreadable', users };
    case 'at': {
      const left = c.expiry.at.getTime() - now.getTime();
      const state: ExpiryState = left <= 0 ? 'expired' : left <= withinDays * DAY_MS ? 'expiring' : 'valid';
      return { credential: c, state, daysLeft: Math.floor(left / DAY_MS), users };
    }
    default: {
      const never: never = c.expiry;
      throw new Error(`unknown expiry ${JSON.stringify(never)}`);
    }
  }
}

const ORDER: Readonly<Record<ExpiryState, number>> = { expired: 0, expiring: 1, unreadable: 2, valid: 3, never: 4 };

/**
 * The credentials to report at `now`: expired, expiring within `withinDays`, unreadable; expired
 * first, each group soonest-first (longest expired first), then by kind and name.
 */
export function buildExpiryReport(
  credentials: readonly Credential[],
  users: ReadonlyMap<string, readonly CredentialUser[]>,
  now: Date,
  withinDays: number,
): ExpiryReport {
  const counted: Record<CredentialKind, number> = { pgp: 0, ssh: 0, ssl: 0 };
  for (const c of credentials) counted[c.kind]++;
  const items = credentials
    .map((c) => standingOf(c, now, withinDays, users.get(credentialKey(c)) ?? []))
    .filter((s) => s.state === 'expired' || s.state === 'expiring' || s.state === 'unreadable')
    .sort(
      (a, b) =>
        ORDER[a.state] - ORDER[b.state] ||
        (a.daysLeft ?? 0) - (b.daysLeft ?? 0) ||
        a.credential.kind.localeCompare(b.credential.kind) ||
        a.credential.name.localeCompare(b.credential.name),
    );
  return { now, withinDays, counted, items };
}
