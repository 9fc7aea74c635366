/**
 * PGP keys, SSH keys and SSL certificates of the automation service, as mftops reads them
 * (`GET /pgpkeys`, `/sshkeys`, `/sslcerts`): public metadata only, normalised from every form of
 * register A-31 by `readCredential` (src/services/automation/normalize-credentials.ts). No key
 * material is kept: not the public key text either, since no report needs it.
 */
export type CredentialKind = 'pgp' | 'ssh' | 'ssl';

/**
 * When a credential stops being valid. `never`: the server gives no expiry, or says none (empty,
 * `never`, 0); `unreadable`: an expiry field is there but in no form mftops reads (`text`, cut
 * to 40 characters), reported as such rather than guessed.
 */
export type CredentialExpiry =
  | { readonly kind: 'never' }
  | { readonly kind: 'at'; readonly at: Date }
  | { readonly kind: 'unreadable'; readonly field: string; readonly text: string };

export interface Credential {
  readonly kind: CredentialKind;
  /** The server's id: a key's `ID`; a certificate's `Sha1Thumbprint` (its path id), else `ID`. */
  readonly id: string;
  /** `Name`; for a certificate without one, `IssuedTo`. */
  readonly name: string;
  readonly expiry: CredentialExpiry;
  /** A key's fingerprint; a certificate's SHA-1 thumbprint. */
  readonly fingerprint?: string;
  /** A PGP key's own key id (`KeyID`), as opposed to the server's object id. */
  readonly keyId?: string;
  /** A certificate's subject (`IssuedTo`) and issuer. */
  readonly subject?: string;
  readonly issuer?: string;
}

/** A host or task that references a credential, and through which field (`DefClientKeyID`, `Source.ClientKeyID`…). */
export interface CredentialUser {
  readonly type: 'host' | 'task';
  readonly id: string;
  readonly name: string;
  /** The field that names the credential; `via host NAME` when a step takes its host's default. */
  readonly field: string;
}

/** Where a credential stands on a given day. */
export type ExpiryState = 'expired' | 'expiring' | 'valid' | 'never' | 'unreadable';

/** One credential of the expiry report, with what uses it. */
export interface CredentialStanding {
  readonly credential: Credential;
  readonly state: ExpiryState;
  /**
   * Whole days from now to the expiry, rounded down (0: expires within 24 hours; negative: expired
   * that many days ago, rounded towards zero then minus one). Absent when there is no expiry.
   */
  readonly daysLeft?: number;
  readonly users: readonly CredentialUser[];
}

/**
 * The expiry report of `mftops status` and of drift: the credentials that are expired, expiring
 * within `withinDays`, or whose expiry cannot be read; expired first (longest expired first), then
 * expiring (soonest first), then unreadable.
 */
export interface ExpiryReport {
  /** The instant the report is made for (the clock, `MFTOPS_NOW` in tests). */
  readonly now: Date;
  readonly withinDays: number;
  /** How many credentials were read, by kind. */
  readonly counted: Readonly<Record<CredentialKind, number>>;
  readonly items: readonly CredentialStanding[];
}

/** A list that could not be read: the account may not (403) or the server has no such list (404, 405, 501). */
export interface CredentialListUnavailable {
  readonly kind: CredentialKind;
  readonly status: number;
}

/** Everything read for the expiry report: the credentials, their users, and the lists that could not be read. */
export interface CredentialEstate {
  readonly credentials: readonly Credential[];
  readonly users: ReadonlyMap<string, readonly CredentialUser[]>;
  readonly unavailable: readonly CredentialListUnavailable[];
}

/** What status and drift hold about keys and certificates: the report, or why there is none (one line). */
export type CredentialSection =
  | { readonly ok: true; readonly report: ExpiryReport; readonly unavailable: readonly CredentialListUnavailable[] }
  | { readonly ok: false; readonly error: string };
