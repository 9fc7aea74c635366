import type { AuditAttribution, AuditStatus, DriftKind } from '../drift/model.js';
import type { ImportedManifest, SecretPlaceholder } from '../import/model.js';
import type { ResourceKind } from '../plan/model.js';

/**
 * What `mftops drift --adopt` does to the manifests, computed before any file is written: each
 * existing manifest file with its edits applied, the new manifests of objects created on the
 * server, and what it refused and why. Plain data; `src/app/adopt-drift.ts` writes it, the
 * renderers show it.
 *
 * Direction: adoption makes git say what the server has, for the drifted objects asked for; it
 * never writes a secret (a secret the server changed is "changed on the server, not adoptable"),
 * never replaces a `${var:NAME}` reference or a value a `kind: Patch` gives by a literal (those
 * fields are refused, naming the variable or the patch), and never guesses.
 */
export interface AdoptionOutcome {
  /** Existing manifest files to change, in file order. */
  readonly files: readonly EditedFile[];
  /** Objects created on the server (unmanaged in scope): manifests to write as `mftops import` would. */
  readonly created: readonly AdoptedNewManifest[];
  /** Objects (or fields of objects) left as they are, with the reason, in address order. */
  readonly refused: readonly AdoptionRefusal[];
  /** Addresses asked for that are managed and in sync: nothing to adopt (not a refusal). */
  readonly inSync: readonly string[];
}

/** An existing manifest file with its edits applied; `after` absent: every document in it is removed, so the file is deleted. */
export interface EditedFile {
  /** As the manifests were loaded (absolute). */
  readonly file: string;
  readonly before: string;
  readonly after?: string;
  /** The objects declared in it that adoption changes, in report order. */
  readonly objects: readonly AdoptedObject[];
}

/** One drifted object whose manifest adoption edits (its fields, entries, or its whole document). */
export interface AdoptedObject {
  readonly address: string;
  readonly kind: ResourceKind;
  readonly drift: DriftKind;
  /**
   * `changed`: fields or entries now say what the server has (`paths`: which, in report order);
   * `removed`: deleted on the server, so its document is removed.
   */
  readonly outcome: 'changed' | 'removed';
  readonly paths: readonly string[];
  /** Who changed it last and when, from the automation server's audit report (tasks and ACLs). */
  readonly lastChange?: AuditAttribution;
}

/** An object created on the server, as its new manifest. */
export interface AdoptedNewManifest {
  readonly address: string;
  readonly manifest: ImportedManifest;
  readonly lastChange?: AuditAttribution;
}

/**
 * What adoption left alone. `path` names the field or entry when only part of the object was
 * refused (its other differences adopted); absent: the whole object.
 * - `secret`: a secret changed on the server: never written (not adoptable);
 * - `variable`: the manifest takes the value from `${var:NAME}`;
 * - `patch`: a `kind: Patch` gives the value;
 * - `unknown`: the address names no drifted or managed object of this environment;
 * - `unsafe`: anything else adoption cannot do without guessing (`reason` says what).
 */
export interface AdoptionRefusal {
  readonly address: string;
  readonly path?: string;
  readonly why: 'secret' | 'variable' | 'patch' | 'unknown' | 'unsafe';
  /** One line, no value of a secret. */
  readonly reason: string;
}

/** What `mftops drift --adopt` did (or, `dryRun`, would do): what every renderer draws from. */
export interface AdoptionReport {
  readonly environment: string;
  readonly dryRun: boolean;
  /** Edited files in file order, then the new ones. */
  readonly files: readonly AdoptionFileResult[];
  readonly refused: readonly AdoptionRefusal[];
  readonly inSync: readonly string[];
  readonly secrets: readonly SecretPlaceholder[];
  /** Whether who-changed-what could be read (the drift report's audit state). */
  readonly audit: AuditStatus;
  /** What adoption did to the acknowledgements (`drift.ignore`) of mftops.yaml; absent: none concerned it. */
  readonly acknowledgements?: AdoptionAcknowledgements;
}

/**
 * Acknowledged drift and adoption. An object named by its address is adopted with its
 * acknowledged differences, and the rules that named it are removed from mftops.yaml (`cleared`:
 * the file is then among `files`, edited in the same all-or-nothing write as the manifests); a
 * rule written as a pattern, or covering a difference that was refused, stays (`kept`). `--adopt` without addresses adopts no acknowledged
 * difference: `leftAlone` lists the objects that have some.
 */
export interface AdoptionAcknowledgements {
  readonly cleared: readonly AcknowledgementNote[];
  readonly kept: readonly AcknowledgementNote[];
  /** Addresses, sorted. */
  readonly leftAlone: readonly string[];
}

/** One `drift.ignore` rule adoption concerned: the adopted object, the rule as written (`address[ path]`), and `FILE:LINE:COL` of it. */
export interface AcknowledgementNote {
  readonly object: string;
  readonly rule: string;
  readonly where: string;
  /** Kept: the object's differences the rule covers that were not adopted (refused); absent for a pattern rule. */
  readonly notAdopted?: readonly string[];
}

/** One manifest file adoption changes: `edited` in place, `created` for objects created on the server, `deleted` when every document in it went. */
export interface AdoptionFileResult {
  /** Relative to the working folder, `/`-separated, when inside it. */
  readonly path: string;
  readonly action: 'edited' | 'created' | 'deleted';
  readonly objects: readonly AdoptedFileObject[];
  /** The unified diff of the file (`--dry-run` shows it). */
  readonly diff: string;
}

export interface AdoptedFileObject {
  readonly address: string;
  /** `changed`: fields or entries adopted (`paths`); `removed`: deleted on the server; `created`: created on the server. */
  readonly outcome: AdoptedObject['outcome'] | 'created';
  readonly paths: readonly string[];
  readonly lastChange?: AuditAttribution;
}
