import { ConfigError } from '../errors.js';
import type { JsonObject } from './json.js';
import { dropNulls, isJsonObject } from './json.js';
import type { Variants } from './state.js';

// PGP keys, SSH keys and SSL certificates (A §2.7, §4.3, §4.4; SPEC rules 190–194): public
// metadata only. A seed field that could hold private key material is refused, so the emulator
// never stores or serves one.

/** Which list a credential is on. */
export type CredentialList = 'pgpKeys' | 'sshKeys' | 'sslCerts';

/**
 * The stored form (one per list): the common fields plus
 * - PGP (model not shown, A §2.8): `KeyID`, `Fingerprint`, `UserID`, `ExpirationDate` (ISO
 *   instant; absent = never expires);
 * - SSH (A §2.7): `fingerprint`, `publicKeyOpenSSH`, `publicKeySSH`, and an `ExpirationDate`
 *   only when seeded (the reference shows none);
 * - SSL (A §2.7): `ExpDate`, `ValidFromDate` (ISO instants), `IssuedTo`, `Issuer`, `SerialNum`,
 *   `Sha1Thumbprint`, `Store`.
 */
export interface CredentialStore {
  pgpKeys: JsonObject[];
  sshKeys: JsonObject[];
  sslCerts: JsonObject[];
}

/** Field names a seed credential may not carry: private material has no place in the emulator. */
const PRIVATE_FIELD = /private|secret|passphrase|password/i;

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z$/;

/** The seed's `pgpKeys`, `sshKeys`, `sslCerts` in the stored form; a mistake is a ConfigError. */
export function seedCredentials(
  seed: { readonly pgpKeys?: unknown; readonly sshKeys?: unknown; readonly sslCerts?: unknown },
  nextId: () => string,
): CredentialStore {
  const read = (list: CredentialList, dates: readonly string[]): JsonObject[] => {
    const raw = seed[list];
    if (raw === undefined) return [];
    if (!Array.isArray(raw)) fail(`automation.${list} must be a list`);
    const ids = new Set<string>();
    return raw.map((item, i) => {
      if (!isJsonObject(item) || typeof item.Name !== 'string' || item.Name === '') fail(`automation.${list}[${i}] needs a Name`);
      const o = dropNulls(item) as JsonObject;
      for (const k of Object.keys(o))
        if (PRIVATE_FIELD.test(k)) fail(`automation.${list}[${i}] (${String(o.Name)}): ${k} looks like private key material; seed public metadata only`);
      for (const d of dates) {
        const v = o[d];
        if (v !== undefined && (typeof v !== 'string' || !INSTANT.test(v)))
          fail(`automation.${list}[${i}] (${String(o.Name)}): ${d} must be an ISO instant like 2026-12-01T00:00:00Z`);
      }
      const id = list === 'sslCerts' ? (o.Sha1Thumbprint ?? o.ID ?? nextId()) : (o.ID ?? nextId());
      if (typeof id !== 'string') fail(`automation.${list}[${i}] (${String(o.Name)}): ID must be a string`);
      if (ids.has(id.toLowerCase())) fail(`automation.${list}: duplicate ID ${id}`);
      ids.add(id.toLowerCase());
      const { ID: _id, Name, Group, ...rest } = o;
      const base: JsonObject = { ID: id, Name: Name!, Group: Group ?? [], ...rest };
      return list === 'sslCerts' ? { ...base, Sha1Thumbprint: o.Sha1Thumbprint ?? id } : base;
    });
  };
  return {
    pgpKeys: read('pgpKeys', ['ExpirationDate']),
    sshKeys: read('sshKeys', ['ExpirationDate']),
    sslCerts: read('sslCerts', ['ExpDate', 'ValidFromDate']),
  };
}

function fail(message: string): never {
  throw new ConfigError(`emulator seed: ${message}`);
}

/** The sort key of a list: SSL certificates by issuer (A §4.1), the keys by name. */
export function credentialSortName(list: CredentialList, o: JsonObject): string {
  return String((list === 'sslCerts' ? o.Issuer : o.Name) ?? '');
}

/**
 * A credential as answered, in the reading of `automation.keyDates` (register A-31):
 * `iso` answers the stored ISO instants (a PGP key that never expires: `ExpirationDate: ""`);
 * `windows` answers a PGP or SSH key's expiry as `Expires`, epoch seconds (0 = never), and an SSL
 * certificate's dates as `M/d/yyyy h:mm:ss AM` (US culture, no zone; the instant in UTC).
 */
export function encodeCredential(list: CredentialList, o: JsonObject, v: Variants): JsonObject {
  const windows = v['automation.keyDates'] === 'windows';
  switch (list) {
    case 'pgpKeys':
    case 'sshKeys': {
      const { ExpirationDate, ...rest } = o;
      if (windows) return { ...rest, Expires: typeof ExpirationDate === 'string' ? Math.floor(Date.parse(ExpirationDate) / 1000) : 0 };
      if (list === 'sshKeys' && ExpirationDate === undefined) return rest;
      return { ...rest, ExpirationDate: typeof ExpirationDate === 'string' ? ExpirationDate : '' };
    }
    case 'sslCerts': {
      if (!windows) return o;
      const out: JsonObject = { ...o };
      for (const f of ['ExpDate', 'ValidFromDate']) if (typeof o[f] === 'string') out[f] = usDateTime(new Date(o[f]));
      return out;
    }
    default: {
      const never: never = list;
      throw new Error(`unknown credential list ${String(never)}`);
    }
  }
}

/** `12/1/2026 3:04:05 PM`, in UTC. */
function usDateTime(d: Date): string {
  const h = d.getUTCHours();
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCMonth() + 1}/${d.getUTCDate()}/${d.getUTCFullYear()} ${h % 12 === 0 ? 12 : h % 12}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} ${h < 12 ? 'AM' : 'PM'}`;
}
