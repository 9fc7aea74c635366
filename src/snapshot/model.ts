/**
 * The snapshot store's data (DESIGN.md §5 steps 2 and 5). A snapshot is a folder
 * `<snapshots.dir>/<env>/<id>/` holding:
 *
 * - `automation-config.xml` (or `.xml.enc`): the bytes of `GET /config`, exactly as received;
 * - `transfer-folders.json` (or `.json.enc`): the live ACL entries of the transfer folders named
 *   at save time (apply names the folders its plan touches);
 * - `snapshot.json`: the {@link SnapshotManifest} below, never encrypted and never secret.
 *
 * The folder is 0700 and every file 0600: the export holds host passwords in clear.
 */

/** `snapshot.json` format; bump on any incompatible change. */
export const SNAPSHOT_FORMAT_VERSION = 1;

export const MANIFEST_FILE = 'snapshot.json';
export const AUTOMATION_FILE = 'automation-config.xml';
export const FOLDERS_FILE = 'transfer-folders.json';
/** Suffix of encrypted files (see crypto.ts for the layout). */
export const ENCRYPTED_SUFFIX = '.enc';

/**
 * A snapshot id: the UTC time of the save, ISO 8601 with `:` replaced by `-` so that it is a
 * file name everywhere (`2026-11-22T02-30-00.123Z`). Ids sort like times.
 */
export const SNAPSHOT_ID = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}Z$/;

/** Environment names as the configuration schema allows them: safe as a folder name. */
export const ENVIRONMENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** One file of a snapshot as recorded in `snapshot.json`. */
export interface SnapshotFile {
  /** Name inside the snapshot folder, `.enc` included when encrypted. */
  readonly file: string;
  /** Size of the plaintext, in bytes. */
  readonly bytes: number;
  /** sha256 of the plaintext, lowercase hex (for an encrypted file: of what decrypting gives). */
  readonly sha256: string;
}

/** `snapshot.json`: what a snapshot holds and how to check it. Holds no secret. */
export interface SnapshotManifest {
  readonly formatVersion: typeof SNAPSHOT_FORMAT_VERSION;
  readonly id: string;
  /** Environment name from `mftops.yaml`; also the parent folder's name. */
  readonly environment: string;
  /** ISO 8601 UTC time of the save (the id, with colons). */
  readonly createdAt: string;
  /** mftops version that wrote it. */
  readonly toolVersion: string;
  /** Why it was taken, when not by hand, e.g. `before restoring prod/2026-…`. */
  readonly note?: string;
  readonly automation: SnapshotFile & {
    /** Base URL of the automation service, as configured. */
    readonly url: string;
    /** `appVersion` of `GET /info`, when the caller knew it. */
    readonly serverVersion?: string;
    /** `Task` elements in the export's `Tasks` section. */
    readonly taskCount: number;
  };
  /** Absent when no transfer folder was named. */
  readonly transfer?: SnapshotFile & {
    readonly url?: string;
    readonly folderCount: number;
  };
  /** Absent when stored in clear. */
  readonly encryption?: {
    readonly algorithm: 'aes-256-gcm';
    /** A one-way check value of the key (HMAC-SHA256 of a constant): tells a wrong key from a changed file. */
    readonly keyCheck: string;
  };
}

/** One transfer folder in `transfer-folders.json`. */
export interface SavedFolder {
  /** The path the caller named. */
  readonly path: string;
  /** The folder's id at save time; null when no folder had that path. */
  readonly id: string | null;
  /** The ACL entries as `GET /folders/{id}/acls` answered them (all types, non-editable ones too). */
  readonly entries: readonly SavedAclEntry[];
}

/** A folder ACL entry as read (FolderAclEntry of the transfer client, as plain JSON). */
export interface SavedAclEntry {
  readonly type: string;
  readonly id: string;
  readonly name?: string;
  readonly permissions: Readonly<Record<string, unknown>>;
  readonly isEditable?: boolean;
  readonly isDeletable?: boolean;
  readonly [field: string]: unknown;
}

/** The body of `transfer-folders.json`. */
export interface SavedFolders {
  readonly formatVersion: typeof SNAPSHOT_FORMAT_VERSION;
  readonly folders: readonly SavedFolder[];
}

/** A snapshot as listed: the manifest's facts, flattened for tables and JSON output. */
export interface SnapshotInfo {
  readonly env: string;
  readonly id: string;
  /** Absolute path of the snapshot folder. */
  readonly path: string;
  readonly createdAt: string;
  /** Plaintext size of the automation export. */
  readonly bytes: number;
  /** sha256 of the automation export's plaintext. */
  readonly sha256: string;
  readonly taskCount: number;
  /** Transfer folders saved with it (0 when none). */
  readonly folderCount: number;
  readonly encrypted: boolean;
  readonly serverUrl: string;
  readonly serverVersion?: string;
  readonly toolVersion: string;
  readonly note?: string;
}

/** A folder under the snapshots dir that looks like a snapshot but cannot be read as one. */
export interface UnreadableSnapshot {
  readonly env: string;
  readonly id: string;
  readonly path: string;
  readonly reason: string;
}

export interface SnapshotList {
  /** Oldest first. */
  readonly snapshots: readonly SnapshotInfo[];
  readonly unreadable: readonly UnreadableSnapshot[];
}

/** What `verifySnapshot` checked, when everything matched. */
export interface VerifiedSnapshot {
  readonly snapshot: SnapshotInfo;
  readonly files: readonly SnapshotFile[];
}

// --- diff ---------------------------------------------------------------------------------------

/** The kinds of object a snapshot diff compares, by name. */
export type DiffKind = 'task' | 'host' | 'resourceGroupAcl';

/** Shown instead of any secret value (host passwords, secret task parameters). */
export const SENSITIVE = '(sensitive)';

/**
 * One field that differs between two versions of an object. `path` is dotted from the object
 * (`Active`, `Info.Description`, `Schedules.Schedule.Days.DayOfWeek`, `Parameters.Parameter[ApiKey].value`,
 * `Source[1].Path`); repeated elements are keyed by their `Name` attribute when they all have a
 * distinct one, else by position from 0. Absent on one side = undefined. Secret values are
 * already replaced by {@link SENSITIVE}: a diff holds no secret.
 */
export interface FieldChange {
  readonly path: string;
  readonly before?: string;
  readonly after?: string;
}

export interface ChangedObject {
  readonly name: string;
  readonly fields: readonly FieldChange[];
}

/** Differences of one kind, each list sorted by name. */
export interface KindDiff {
  readonly kind: DiffKind;
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly ChangedObject[];
}

/** Two configurations compared: one entry per kind, in the order task, host, resourceGroupAcl. */
export interface ConfigDiff {
  readonly kinds: readonly KindDiff[];
}

/** A diff of two stored snapshots (A → B). */
export interface SnapshotDiff extends ConfigDiff {
  readonly a: { readonly env: string; readonly id: string };
  readonly b: { readonly env: string; readonly id: string };
}
