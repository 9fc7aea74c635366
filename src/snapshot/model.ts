import type { GroupMembersForm } from '../services/transfer/types.js';
import type { ServiceName } from '../vocabulary.js';

/**
 * The snapshot store's data (DESIGN.md §5 steps 2 and 5). A snapshot is a folder
 * `<snapshots.dir>/<env>/<id>/` holding one part per service of the environment:
 *
 * - `automation-config.xml` (or `.xml.enc`): the bytes of `GET /config`, exactly as received
 *   (when the environment has the automation service);
 * - `transfer-folders.json` (or `.json.enc`): the live ACL entries of the transfer folders named
 *   at save time (when the environment has the transfer service; apply names the folders its plan
 *   touches, `snapshot save` the managed folders and those under `scope.folders`; possibly none);
 * - `transfer-accounts.json` (or `.json.enc`): every transfer user (the users list's fields, never a
 *   password), every group and its members, whenever the transfer part is saved and the account
 *   may list users and groups (absent in snapshots of older mftops);
 * - `snapshot.json`: the {@link SnapshotManifest} below, never encrypted and never secret.
 *
 * The folder is 0700 and every file 0600: the export holds host passwords in clear.
 */

/**
 * `snapshot.json` format written now; bump on any incompatible change. Version 2 made the
 * automation part optional (transfer-only environments).
 */
export const SNAPSHOT_FORMAT_VERSION = 2;
/** Every format this mftops reads: version 1 always holds the automation export. */
export const READABLE_FORMAT_VERSIONS: readonly SnapshotFormatVersion[] = [1, 2];
export type SnapshotFormatVersion = 1 | typeof SNAPSHOT_FORMAT_VERSION;

export const MANIFEST_FILE = 'snapshot.json';
export const AUTOMATION_FILE = 'automation-config.xml';
export const FOLDERS_FILE = 'transfer-folders.json';
export const ACCOUNTS_FILE = 'transfer-accounts.json';
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

/** `snapshot.json`: what a snapshot holds and how to check it. Holds no secret. At least one part is present. */
export interface SnapshotManifest {
  readonly formatVersion: SnapshotFormatVersion;
  readonly id: string;
  /** Environment name from `mftops.yaml`; also the parent folder's name. */
  readonly environment: string;
  /** ISO 8601 UTC time of the save (the id, with colons). */
  readonly createdAt: string;
  /** mftops version that wrote it. */
  readonly toolVersion: string;
  /** Why it was taken, when not by hand, e.g. `before restoring prod/2026-…`. */
  readonly note?: string;
  /** The automation export; absent when the environment has no automation service (format 2 only). */
  readonly automation?: SnapshotFile & {
    /** Base URL of the automation service, as configured. */
    readonly url: string;
    /** `appVersion` of `GET /info`, when the caller knew it. */
    readonly serverVersion?: string;
    /** `Task` elements in the export's `Tasks` section. */
    readonly taskCount: number;
  };
  /**
   * The transfer folders' ACL entries. Format 2: present whenever the transfer service was saved,
   * with 0 folders when none was named. Format 1: present only when folders were named.
   */
  readonly transfer?: SnapshotFile & {
    readonly url?: string;
    readonly folderCount: number;
    /**
     * `transfer-accounts.json`: users, groups and memberships. Absent in snapshots of older mftops
     * and when the account could not list users or groups (a warning said so at save time).
     * Added to format 2 without a bump: an older mftops reads such a snapshot, without the accounts.
     */
    readonly accounts?: SnapshotFile & {
      readonly userCount: number;
      readonly groupCount: number;
    };
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
  readonly formatVersion: SnapshotFormatVersion;
  readonly folders: readonly SavedFolder[];
}

/**
 * A transfer user as `GET /users` answered it: the SimpleUserModel fields only. Never a password
 * (no read returns one; were a server to send one, it is dropped before anything is written).
 */
export interface SavedUser {
  readonly id: string;
  /** The identity: compared case-insensitively (the API cannot rename a user). */
  readonly username: string;
  readonly fullName?: string;
  readonly permission?: string;
  readonly email?: string;
  readonly status?: string;
  /** Saved for the record; never compared nor restored (it changes at every sign-on). */
  readonly lastLoginStamp?: string;
}

/** A group member: the user's id and username at save time. */
export interface SavedMember {
  readonly id: string;
  readonly username: string;
}

/** A transfer group and its members. */
export interface SavedGroup {
  readonly id: string;
  /** The identity: compared case-insensitively. */
  readonly name: string;
  readonly description?: string;
  /** Sorted by username; null when the members could not be read (a restore leaves them alone). */
  readonly members: readonly SavedMember[] | null;
}

/** The body of `transfer-accounts.json`. Holds no secret. */
export interface SavedAccounts {
  readonly formatVersion: SnapshotFormatVersion;
  /** How the server told the members (`none`: it did not; every group's `members` is null then). */
  readonly membersForm: GroupMembersForm;
  /** Sorted by username. */
  readonly users: readonly SavedUser[];
  /** Sorted by name. */
  readonly groups: readonly SavedGroup[];
}

/** A snapshot as listed: the manifest's facts, flattened for tables and JSON output. */
export interface SnapshotInfo {
  readonly env: string;
  readonly id: string;
  /** Absolute path of the snapshot folder. */
  readonly path: string;
  readonly createdAt: string;
  /** The parts it holds, automation first. */
  readonly services: readonly ServiceName[];
  /** Plaintext size of the automation export; absent without the automation part (so are sha256 … serverVersion). */
  readonly bytes?: number;
  /** sha256 of the automation export's plaintext. */
  readonly sha256?: string;
  readonly taskCount?: number;
  /** The automation service's URL. */
  readonly serverUrl?: string;
  readonly serverVersion?: string;
  /** Transfer folders saved with it (0 when none, or without the transfer part). */
  readonly folderCount: number;
  /** The transfer service's URL, when the transfer part recorded it. */
  readonly transferUrl?: string;
  /** Transfer users and groups saved with it; absent when the snapshot holds no accounts. */
  readonly userCount?: number;
  readonly groupCount?: number;
  readonly encrypted: boolean;
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

/**
 * A folder ACL entry as a snapshot diff shows it. Entries are identified by principal (`type` +
 * `id`); the permissions are the granted ones, as sets in the manifest schema's order.
 */
export interface DiffEntry {
  readonly type: string;
  readonly id: string;
  /** The entry's `name` as saved (B's for an entry in both), when the snapshot has one. */
  readonly name?: string;
  readonly permissions: readonly string[];
  readonly sharePermissions: readonly string[];
}

/** An entry both snapshots hold, with other permissions. */
export interface ChangedEntry {
  readonly type: string;
  readonly id: string;
  readonly name?: string;
  readonly before: Pick<DiffEntry, 'permissions' | 'sharePermissions'>;
  readonly after: Pick<DiffEntry, 'permissions' | 'sharePermissions'>;
}

/** One folder both snapshots saved whose ACL differs; entry lists sorted by type, then name or id. */
export interface FolderDiff {
  /** As B saved it. */
  readonly path: string;
  /** The folder did not exist when snapshot A (`a`) or B (`b`) was taken: no entries there. */
  readonly absentIn?: 'a' | 'b';
  readonly added: readonly DiffEntry[];
  readonly removed: readonly DiffEntry[];
  readonly changed: readonly ChangedEntry[];
}

/**
 * The folder ACLs of two snapshots compared. A snapshot holds only the folders named when it was
 * taken: a folder saved in one snapshot only is listed as such, not compared.
 */
export interface FoldersDiff {
  /** Folders both snapshots saved (paths compared as the server does). */
  readonly compared: number;
  /** Paths saved only in A, only in B; sorted. */
  readonly onlyInA: readonly string[];
  readonly onlyInB: readonly string[];
  /** The compared folders that differ, by path. */
  readonly changed: readonly FolderDiff[];
}

/** A user both sides hold (by username) that differs. */
export interface ChangedUser {
  readonly username: string;
  /** fullName, email, permission, status (the fields a restore can patch) that differ. */
  readonly fields: readonly FieldChange[];
  /** The same username with another id: the user was deleted and re-created in between. */
  readonly recreated?: { readonly before: string; readonly after: string };
}

/** A group both sides hold (by name) that differs. */
export interface ChangedGroup {
  readonly name: string;
  /** `description`, when it differs. */
  readonly fields: readonly FieldChange[];
  /** The same name with another id: the group was deleted and re-created in between. */
  readonly recreated?: { readonly before: string; readonly after: string };
  /** Usernames in B's members and not in A's, and the other way; sorted. */
  readonly membersAdded: readonly string[];
  readonly membersRemoved: readonly string[];
}

/**
 * The transfer users and groups of two sides compared (A → B): users by username, groups by name,
 * both case-insensitively; lists sorted. `lastLoginStamp` is not compared.
 */
export interface AccountsDiff {
  readonly users: { readonly added: readonly string[]; readonly removed: readonly string[]; readonly changed: readonly ChangedUser[] };
  readonly groups: { readonly added: readonly string[]; readonly removed: readonly string[]; readonly changed: readonly ChangedGroup[] };
  /** Groups on both sides whose members could not be read on one of them: their members are not compared. */
  readonly membersNotCompared: readonly string[];
}

/** A diff of two stored snapshots (A → B). */
export interface SnapshotDiff extends PartsDiff {
  readonly a: { readonly env: string; readonly id: string };
  readonly b: { readonly env: string; readonly id: string };
}

/** What differs between two sets of saved parts (A → B): two snapshots, or the live servers and a snapshot. */
export interface PartsDiff {
  /** The automation configurations compared (as {@link ConfigDiff}); absent when a side holds no automation export. */
  readonly kinds?: ConfigDiff['kinds'];
  /** Why `kinds` is absent, e.g. `snapshot lab/… holds no automation export`. */
  readonly automationNotCompared?: string;
  readonly folders: FoldersDiff;
  /** The transfer users and groups compared; absent when a side holds none. */
  readonly accounts?: AccountsDiff;
  /** Why `accounts` is absent while the transfer part is compared, e.g. `snapshot lab/… holds no users and groups`. */
  readonly accountsNotCompared?: string;
}

/**
 * One item of a list section of the automation export (`<Tasks><Task ID="…" Name="…">`,
 * `<ACLs><ACL ACLID="…" ResourceGroupName="…" UserGroupName="…">`): the attributes that identify
 * it, entities decoded; absent when the element does not carry them.
 */
export interface ExportItem {
  /** `ID` (tasks) or `ACLID`, else `ID` (ACLs). */
  readonly id?: string;
  /** `Name` (tasks); `ResourceGroupName / UserGroupName` (ACLs). */
  readonly name?: string;
}

/**
 * What the export holds of the lists apply checks it against: the items of the root's first
 * `Tasks` and `ACLs` sections, in document order (none when the section is missing).
 */
export interface ExportContents {
  readonly tasks: readonly ExportItem[];
  readonly acls: readonly ExportItem[];
}

/** An object as the live list answered it: its server id and the name a message shows. */
export interface LiveItem {
  readonly id: string;
  readonly name: string;
}

/**
 * What a backup of the server must hold (apply, before its first write): the live lists read
 * just before the export, and the ids of the objects the plan updates, replaces or deletes. A
 * list absent here is not checked (not read: its service has nothing this apply could change).
 */
export interface ExportBaseline {
  readonly tasks?: { readonly live: readonly LiveItem[]; readonly touched: readonly string[] };
  readonly acls?: { readonly live: readonly LiveItem[]; readonly touched: readonly string[] };
  /**
   * Transfer folders as apply's stale check just read them, by path: the folder id (null: no
   * folder there) and how many ACL entries it has. The saved folder must be the same folder
   * with at least as many entries.
   */
  readonly folders?: readonly { readonly path: string; readonly id: string | null; readonly entries: number }[];
}

/**
 * The diff found a difference: an object added, removed or changed, or a folder's ACL entries
 * changed (what its summary counts; a folder saved on one side only is not compared). `snapshot
 * diff` exits 2 then, as plan and diff-env do.
 */
export function hasDifferences(diff: PartsDiff): boolean {
  return (
    (diff.kinds ?? []).some((k) => k.added.length + k.removed.length + k.changed.length > 0) ||
    diff.folders.changed.length > 0 ||
    (diff.accounts !== undefined && countAccountChanges(diff.accounts) > 0)
  );
}

/** Users and groups added, removed or changed. */
export function countAccountChanges(d: AccountsDiff): number {
  return [d.users, d.groups].reduce((n, k) => n + k.added.length + k.removed.length + k.changed.length, 0);
}

/** What a restore will do to the transfer users and groups, told before it asks (live → snapshot, read just then). */
export interface AccountRestorePreview {
  readonly usersPatched: number;
  readonly membersAdded: number;
  readonly membersRemoved: number;
  readonly notRestorable: readonly string[];
  readonly leftAlone: readonly string[];
  readonly warnings: readonly string[];
  /** False: the restore was given no writer of users and groups (`accounts`): they are compared and reported, not written. */
  readonly writable: boolean;
}

/**
 * What a restore did to the transfer users and groups (live → snapshot):
 * - `restored`: fields patched and members added/removed (see `errors` for any that failed: then `failed`);
 * - `unchanged`: nothing a restore can write differed;
 * - `notWritten`: compared and reported only: the restore was given no writer of users and groups;
 * - `failed`: a write was refused (`errors`).
 */
export interface AccountsRestore {
  readonly outcome: 'restored' | 'unchanged' | 'notWritten' | 'failed';
  /** Users whose fields were patched (or would be, when `notWritten`). */
  readonly usersPatched: number;
  readonly membersAdded: number;
  readonly membersRemoved: number;
  /** What a restore cannot put back, one sentence each (deleted users: passwords cannot be restored). */
  readonly notRestorable: readonly string[];
  /** Live users and groups the snapshot does not hold, and other things left alone, one sentence each. */
  readonly leftAlone: readonly string[];
  /** Matched by name although the id changed, and the like. */
  readonly warnings: readonly string[];
  readonly errors: readonly string[];
}

/** What happened to one saved folder's ACL. */
export interface FolderRestore {
  readonly path: string;
  /**
   * `restored`: entries put back (`put`) and removed (`deleted`); `unchanged`: already as saved;
   * `absent`: no folder then and none now; `missing`: the folder existed then and is gone now
   * (folders cannot be created back from a snapshot); `failed`: see `error`.
   */
  readonly outcome: 'restored' | 'unchanged' | 'absent' | 'missing' | 'failed';
  readonly put: number;
  readonly deleted: number;
  /** Live entries left alone: not editable, not deletable, or of a type mftops never touches. */
  readonly kept: number;
  /** The folder did not exist when the snapshot was taken: its entries were removed, the folder stays. */
  readonly createdSince?: boolean;
  readonly error?: string;
}

/** What a restore did (`snapshot restore`'s result; its JSON output). */
export interface RestoreResult {
  readonly restored: SnapshotInfo;
  /** The parts put back, automation first. */
  readonly services: readonly ServiceName[];
  /** What the restore changed: the live configuration (A) → the snapshot (B), read before any write. */
  readonly diff: PartsDiff;
  /** The snapshot of the state the restore replaced. */
  readonly preRestore: SnapshotInfo;
  readonly folders: readonly FolderRestore[];
  /** The users and groups, when the transfer part restored holds them. */
  readonly accounts?: AccountsRestore;
  /** True when every folder was restored (or needed nothing), and every user field and membership. */
  readonly complete: boolean;
  /**
   * Read back after the writes, the restored parts match the snapshot: the automation export
   * object for object, each restored folder's entries as the restore leaves them.
   */
  readonly verified: boolean;
  /** What did not match when read back (empty when `verified`), e.g. `task Payroll to bank differs from the snapshot (Info.Description)`. */
  readonly mismatches: readonly string[];
}

/** What one part of a snapshot holds, for messages: `automation export`, `transfer folder ACLs`. */
export function describePart(service: ServiceName): string {
  switch (service) {
    case 'automation':
      return 'automation export';
    case 'transfer':
      return 'transfer folder ACLs';
    default: {
      const never: never = service;
      throw new Error(`unknown service ${String(never)}`);
    }
  }
}
