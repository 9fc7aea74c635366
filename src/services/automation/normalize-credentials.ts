import { withDefined } from '../../with-defined.js';
import type { Credential, CredentialExpiry, CredentialKind } from '../../credentials/model.js';

// The one place the forms of a key's or certificate's expiry are read (register A-31): the
// reference shows `ExpDate` (string, format not shown) on SSL certificates, no expiry on SSH keys
// and no model at all for PGP keys.

/**
 * Field names that hold an expiry, in the order they are tried (compared case-insensitively).
 * The first present, non-null one is the expiry; the others are not looked at.
 */
const EXPIRY_FIELDS = [
  'ExpDate',
  'ExpirationDate',
  'ExpiryDate',
  'ExpireDate',
  'Expires',
  'ExpiresAt',
  'Expiration',
  'Expiry',
  'NotAfter',
  'ValidTo',
  'ValidUntil',
  'ValidToDate',
] as const;

/** Texts that mean "no expiry". */
const NEVER = new Set(['', 'never', 'none', 'no', 'n/a', 'unlimited', '0', '0001-01-01t00:00:00', '0001-01-01t00:00:00z', '9999-12-31', '9999-12-31t23:59:59']);

/** Above this a number is epoch milliseconds, below it epoch seconds (1e11 s is the year 5138). */
const MS_THRESHOLD = 1e11;

/**
 * One item of `GET /pgpkeys`, `/sshkeys` or `/sslcerts` in its canonical form. Only public
 * metadata is carried over: a field not named here (public key text, anything else) is dropped.
 */
export function readCredential(kind: CredentialKind, raw: Readonly<Record<string, unknown>>): Credential {
  const get = (...names: string[]): string | undefined => {
    for (const n of names) {
      const key = Object.keys(raw).find((k) => k.toLowerCase() === n.toLowerCase());
      const v = key === undefined ? undefined : raw[key];
      if ((typeof v === 'string' && v.trim() !== '') || typeof v === 'number') return String(v).trim();
    }
    return undefined;
  };
  const thumbprint = kind === 'ssl' ? get('Sha1Thumbprint', 'Thumbprint') : undefined;
  const id = (kind === 'ssl' ? (thumbprint ?? get('ID')) : get('ID')) ?? '';
  const subject = kind === 'ssl' ? get('IssuedTo', 'Subject') : undefined;
  const fingerprint = kind === 'ssl' ? thumbprint : get('Fingerprint');
  const keyId = kind === 'pgp' ? get('KeyID') : undefined;
  const issuer = kind === 'ssl' ? get('Issuer') : undefined;
  return { kind, id, name: get('Name') ?? subject ?? id, expiry: readExpiry(raw), ...withDefined({ fingerprint, keyId, subject, issuer }) };
}

/** The expiry of an item: its first expiry field (EXPIRY_FIELDS) read by `parseExpiry`; none is `never`. */
export function readExpiry(raw: Readonly<Record<string, unknown>>): CredentialExpiry {
  const keys = Object.keys(raw);
  for (const name of EXPIRY_FIELDS) {
    const key = keys.find((k) => k.toLowerCase() === name.toLowerCase());
    if (key === undefined || raw[key] === null || raw[key] === undefined) continue;
    return parseExpiry(key, raw[key]);
  }
  return { kind: 'never' };
}

/**
 * Every form an expiry has been read in: an ISO 8601 date-time (with a zone, or without one: read
 * as UTC), an ISO date (the start of that day, UTC: reported a day early rather than late), epoch
 * seconds or milliseconds (a number or a digit string), the .NET JSON form `/Date(ms)/`, and the
 * US form `M/d/yyyy[ h:mm[:ss] AM|PM]` or `M/d/yyyy HH:mm[:ss]` (UTC). Empty, `never`, `0`, any
 * instant before 1900 (the .NET minimum date in its forms) and the .NET maximum date mean no expiry. Anything else is `unreadable`.
 */
export function parseExpiry(field: string, value: unknown): CredentialExpiry {
  if (typeof value === 'boolean' || (typeof value !== 'string' && typeof value !== 'number')) return unreadable(field, JSON.stringify(value) ?? '');
  const text = String(value).trim();
  if (NEVER.has(text.toLowerCase())) return { kind: 'never' };
  const at = parseInstant(text);
  if (at === undefined) return unreadable(field, text);
  // The .NET minimum date (`0001-01-01…`, `1/1/0001 12:00:00 AM`) and its kin: no key expired before 1900.
  return at.getUTCFullYear() < NEVER_BEFORE_YEAR ? { kind: 'never' } : { kind: 'at', at };
}

/** An instant before this year means "never". */
const NEVER_BEFORE_YEAR = 1900;

function unreadable(field: string, text: string): CredentialExpiry {
  return { kind: 'unreadable', field, text: text.length > 40 ? `${text.slice(0, 40)}…` : text };
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const DOTNET = /^\/Date\((-?\d+)([+-]\d{4})?\)\/$/;
const US = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s*([AP]M))?)?$/i;

function parseInstant(text: string): Date | undefined {
  if (/^-?\d+(\.\d+)?$/.test(text)) {
    const n = Number(text);
    return valid(new Date(Math.abs(n) >= MS_THRESHOLD ? n : n * 1000));
  }
  const dotnet = DOTNET.exec(text);
  if (dotnet) return valid(new Date(Number(dotnet[1])));
  const date = ISO_DATE.exec(text);
  if (date) return utc(Number(date[1]), Number(date[2]), Number(date[3]), 0, 0, 0);
  if (ISO_DATE_TIME.test(text)) {
    const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(text);
    const iso = text.replace(' ', 'T');
    return valid(new Date(zoned ? iso.replace(/([+-]\d{2})(\d{2})$/, '$1:$2') : `${iso}Z`));
  }
  const us = US.exec(text);
  if (us) {
    let hour = Number(us[4] ?? 0);
    const meridiem = us[7]?.toUpperCase();
    if (meridiem !== undefined) {
      if (hour < 1 || hour > 12) return undefined;
      hour = (hour % 12) + (meridiem === 'PM' ? 12 : 0);
    }
    return utc(Number(us[3]), Number(us[1]), Number(us[2]), hour, Number(us[5] ?? 0), Number(us[6] ?? 0));
  }
  return undefined;
}

/** A UTC instant from its parts; undefined when a part is out of range (no rolling 2/30 into March). */
function utc(y: number, mo: number, d: number, h: number, mi: number, s: number): Date | undefined {
  const at = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  at.setUTCFullYear(y); // Date.UTC reads years 0-99 as 1900-1999
  return at.getUTCFullYear() === y && at.getUTCMonth() === mo - 1 && at.getUTCDate() === d && at.getUTCHours() === h && mi < 60 && s < 60 ? at : undefined;
}

function valid(d: Date): Date | undefined {
  return Number.isNaN(d.getTime()) ? undefined : d;
}
