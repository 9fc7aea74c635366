import type { Scope } from '../config/model.js';
import type { LiveFolder } from '../live/model.js';
import type { LiveGroupMembers } from '../kinds/group/to-manifest.js';
import type { ManifestKind } from '../manifest/types.js';
import type { Host, NamedObject, ResourceGroupAcl, Task } from '../services/automation/types.js';
import type { TransferUser, TransferUserDetails } from '../services/transfer/types.js';

/**
 * `mftops import`: live objects → minimal manifests. The pipeline is
 * source (the servers through read-only clients, or a saved XML snapshot) → `ImportSource`, the
 * one intermediate form (objects shaped as the APIs answer them) → selection (kind, name, scope)
 * → `ImportedManifest` documents (pure) → files (the only writes, never over an existing file
 * without `--force`).
 */

export type ImportKind = ManifestKind;

/**
 * Live objects as the APIs answer them (a snapshot's XML is decoded into the same shapes), with
 * every secret value already replaced by `(suppressed)`: nothing after this point can leak one.
 */
export interface ImportSource {
  /** Where the objects came from, for messages: a server URL or `snapshot <id>`. */
  readonly origin: string;
  readonly tasks: readonly Task[];
  /** Hosts, scripts and date lists turn the ids in tasks into names. */
  readonly hosts: readonly Pick<Host, 'ID' | 'Name' | 'type'>[];
  /** Custom and standard scripts. */
  readonly scripts: readonly NamedObject[];
  readonly dateLists: readonly NamedObject[];
  readonly acls: readonly ResourceGroupAcl[];
  readonly folders: readonly LiveFolder[];
  /** Transfer users the selection names (absent: none were read, as from a snapshot). */
  readonly users?: readonly TransferUser[];
  /** Their details (`GET /users/{id}`), by user id. */
  readonly userDetails?: ReadonlyMap<string, TransferUserDetails>;
  /**
   * Folder paths asked for by exact `--name`: imported even without entries (a folder found by
   * a walk is imported only when it has user or group entries).
   */
  readonly exactFolders?: readonly string[];
  /** Transfer groups with their members' usernames (absent: none were read). */
  readonly groups?: readonly LiveGroupMembers[];
}

/** Which objects to import. */
export interface ImportSelection {
  readonly kinds: readonly ImportKind[];
  /**
   * Tasks and ACLs: an automation name mask (`x`, `x*`, `*x`, `*x*`, `*`), matched against the
   * task name, or the ACL's resource group or user group. Folders: a path glob (`*` within one
   * folder name, `**` across folders). Given, it replaces the scope.
   */
  readonly name?: string;
  /** Every object the account can see, ignoring the environment's scope. */
  readonly all: boolean;
  readonly scope: Scope;
}

/** One manifest to write, with what the user must know about it. */
export interface ImportedManifest {
  readonly kind: ImportKind;
  /** The object's identity (task name, `resourceGroup/userGroup`, folder path). */
  readonly name: string;
  /** `Kind/metadata.name`, as plans show it. */
  readonly address: string;
  /** The manifest document: apiVersion, kind, metadata, spec, keys in schema order. */
  readonly document: Readonly<Record<string, unknown>>;
  /** What the manifest could not say (unknown step kinds, fields a manifest has no place for). */
  readonly notes: readonly string[];
}

/** A `${env:NAME}` placeholder written where the server keeps a secret. */
export interface SecretPlaceholder {
  /** The environment variable the user must set. */
  readonly variable: string;
  readonly address: string;
  /** The field it stands in, e.g. `Parameters.ApiKey`, `steps[0].Source.Password`. */
  readonly field: string;
}

/** What an import produced, before anything is written. */
export interface ImportResult {
  readonly manifests: readonly ImportedManifest[];
  readonly secrets: readonly SecretPlaceholder[];
  /**
   * Live objects left out because their manifest would not validate, each with why (a folder
   * path with `..`, a control or forbidden character: MF324). The import warns and writes the rest.
   */
  readonly skipped: readonly string[];
}

/** A manifest file about to be written. */
export interface PlannedFile {
  /** Relative to the output folder, `/`-separated: `tasks/payroll-to-bank.yaml`. */
  readonly relPath: string;
  /** Absolute. */
  readonly path: string;
  readonly text: string;
  readonly address: string;
}
