import type { SourcePosition } from './diagnostics.js';

/**
 * The desired-state model: what the manifests say, after schema validation and normalisation.
 * `schemas/*.schema.json` is the source of truth for the fields; these types mirror it.
 *
 * Normalisation done by the loader, so later stages see one form only:
 * - 0/1 fields hold `0` or `1` (a manifest may write `true`/`false`);
 * - `Parameters` values are `{value: string, secret: boolean}` (a manifest may write a bare string
 *   or number; a `${env:}`/`${file:}` value is always secret);
 * - secrets (`Password`, secret parameter values) stay reference text such as `${env:NAME}`,
 *   never resolved here (`parseSecretRef` in src/secret.ts reads them).
 * References stay by name (`Host`, `Script`, `DateListRef`, users, groups) or by id when the
 * manifest gives an id (`HostID`, `ScriptID`); plan resolves names against each server.
 */

// The lists live with the other closed vocabularies, where the diagnostics (a leaf) can read them.
import type { ManifestKind } from '../vocabulary.js';
export { DOCUMENT_KINDS, MANIFEST_KINDS, type DocumentKind, type ManifestKind } from '../vocabulary.js';

export const API_VERSION = 'mftops/v1';

/**
 * A variable's value (`environments.<name>.vars` of mftops.yaml); a manifest value that is only
 * `${var:NAME}` takes its type. Variables are not secrets.
 */
export type VarValue = string | number | boolean | readonly (string | number | boolean)[];

/** A 0/1 field of the automation API. */
export type Flag = 0 | 1;

/** A JSON path into a document: property names and list indexes, e.g. `['spec', 'steps', 0, 'Source']`. */
export type JsonPath = readonly (string | number)[];

/** Maps a path inside one document to where it is written. */
export interface SourceMap {
  /**
   * Where the value at `path` is written (`'key'`: where its key is). A path that does not exist
   * in the document resolves to the deepest part that does, so the answer is always a place.
   */
  locate(path: JsonPath | string, target?: 'value' | 'key'): SourcePosition;
  /**
   * Where the value at `path` (or the value it is part of) was written by a `kind: Patch`, when
   * a patch gave it its final value; absent/undefined: it is the document's own.
   */
  patchedAt?(path: JsonPath): SourcePosition | undefined;
}

interface ManifestBase {
  /** `metadata.name`: the identity of Tasks and FolderPermissions (a folder path), a label for ACLs. */
  readonly name: string;
  /** `metadata.previousNames`, empty when absent. */
  readonly previousNames: readonly string[];
  /** Where the document starts (its first key). */
  readonly source: SourcePosition;
  /** Positions of everything in the document, for diagnostics of later stages (unknown host names, ...). */
  readonly sourceMap: SourceMap;
}

export interface TaskManifest extends ManifestBase {
  readonly kind: 'Task';
  readonly spec: TaskSpec;
}

export interface ResourceGroupAclManifest extends ManifestBase {
  readonly kind: 'ResourceGroupAcl';
  readonly spec: ResourceGroupAclSpec;
}

export interface FolderPermissionsManifest extends ManifestBase {
  readonly kind: 'FolderPermissions';
  readonly spec: FolderPermissionsSpec;
}

export interface UserManifest extends ManifestBase {
  readonly kind: 'User';
  readonly spec: UserSpec;
}

export interface GroupManifest extends ManifestBase {
  readonly kind: 'Group';
  readonly spec: GroupSpec;
}

export type Manifest = TaskManifest | ResourceGroupAclManifest | FolderPermissionsManifest | UserManifest | GroupManifest;

// ---------------------------------------------------------------------------------------- Policy

/** A `kind: Policy` document (schemas/policy.schema.json): rules checked on every plan, never a resource. */
export interface PolicyManifest {
  readonly kind: 'Policy';
  readonly name: string;
  readonly spec: PolicySpec;
  readonly source: SourcePosition;
  /** Positions of the document, for diagnostics at `spec.validations[i].expression`. */
  readonly sourceMap: SourceMap;
}

/** `deny`: a violation stops plan (exit 1, no plan file); `warn`: shown only. */
export type PolicySeverity = 'deny' | 'warn';

/** Change actions a policy may match (the write actions of a plan). */
export type PolicyAction = 'create' | 'update' | 'delete' | 'replace';

export interface PolicySpec {
  readonly severity: PolicySeverity;
  /** Which changes are checked; an absent field (or no `match`) matches every change. */
  readonly match?: {
    readonly kinds?: readonly ManifestKind[];
    /** Globs on the object's name (`*`: any run of characters, case ignored). */
    readonly names?: readonly string[];
    readonly actions?: readonly PolicyAction[];
  };
  /** Each must evaluate to `true`; `message` is shown with a violation. */
  readonly validations: readonly { readonly expression: string; readonly message: string }[];
}

// ------------------------------------------------------------------------------------------ Task

/** Host types a step may name; `xferLock` (reference) and `siLock` (deployed servers) are the file transfer server. */
export type HostType =
  | 'xferLock'
  | 'siLock'
  | 'FTP'
  | 'SSHFTP'
  | 'FileSystem'
  | 'SMTP'
  | 'Share'
  | 'POP3'
  | 'S3'
  | 'AS1'
  | 'AS2'
  | 'AS3'
  | 'SharePoint'
  | 'AzureBlob'
  | 'GoogleStorage';

/** A task body (automation API §2.4a) as a manifest writes it; every field optional, only set fields are compared. */
export interface TaskSpec {
  readonly Active?: Flag;
  /** Rerun automatically when a source hits its maximum files or bytes. */
  readonly AR?: Flag;
  /** Compare across sources (sync only, unsupported by current servers). */
  readonly CAS?: '' | 'N' | 'A';
  readonly CacheNames?: 'random' | 'orig';
  /** Resource groups; fixed at creation (a change is a replace). */
  readonly Group?: readonly string[];
  readonly Info?: { readonly Description?: string; readonly Notes?: string };
  /** Passed through as written: the reference does not document next actions. */
  readonly NextActions?: { readonly NextAction: readonly Readonly<Record<string, unknown>>[] };
  readonly Parameters?: Parameters;
  readonly Schedules?: { readonly Schedule: readonly Schedule[] };
  readonly steps?: readonly Step[];
  /** Only `COS`: marks an advanced task, which the API cannot create or update. */
  readonly TT?: 'COS';
  readonly UseDefStateCaching?: Flag;
}

/** Parameters by name, normalised. */
export type Parameters = Readonly<Record<string, Parameter>>;

export interface Parameter {
  /** The value; for a secret, the reference text (`${env:NAME}` / `${file:PATH}`). */
  readonly value: string;
  /** Write-only: plan never compares or prints it, apply resolves and sends it. */
  readonly secret: boolean;
}

export interface Schedule {
  readonly Days?: { readonly DayOfWeek?: readonly DayOfWeek[] };
  /** Date list names. */
  readonly DateListRef?: readonly string[];
  readonly Frequency: { readonly Interval: readonly Interval[] };
  readonly FailIfNoSuccessInSched?: Flag;
  /** 0 = does not span midnight, 1 = pre-midnight part, 2 = post-midnight part. */
  readonly Multi?: 0 | 1 | 2;
  readonly OnlyUntilFirstSuccess?: Flag;
  readonly RunEvenIfNotif?: Flag;
}

/** Full day names: manifests may write `Mon` too, and normalisation makes it `Monday`. */
export type { DayOfWeek } from '../vocabulary.js';
import type { DayOfWeek } from '../vocabulary.js';

/** A time window, `HH:mm` (checked by rule MF305). */
export interface Interval {
  readonly StartTime: string;
  readonly EndTime: string;
}

/** A step: one key naming its kind. */
export type Step = { readonly Source: SourceStep } | { readonly Process: ProcessStep } | { readonly Destination: DestinationStep };

export type StepKind = 'Source' | 'Process' | 'Destination';

/** The kind of a step (its one key). */
export function stepKindOf(step: Step): StepKind {
  if ('Source' in step) return 'Source';
  if ('Process' in step) return 'Process';
  return 'Destination';
}

/** Connection fields shared by Source and Destination steps. */
interface HostStepFields {
  /** Host by name (resolved to HostID and Type at plan time); exactly one of Host/HostID (rule MF308). */
  readonly Host?: string;
  readonly HostID?: string;
  readonly Type?: HostType;
  readonly Path?: string;
  readonly FolderID?: string;
  readonly FolderName?: string;
  readonly Username?: string;
  /** Reference text only (`${env:}`/`${file:}`). */
  readonly Password?: string;
  readonly ConnTimeoutSecs?: number;
  readonly DataTimeoutSecs?: number;
  readonly RetryCount?: number;
  readonly RetryTimeoutSecs?: number;
  readonly UseDefConnTimeoutSecs?: Flag;
  readonly UseDefDataTimeoutSecs?: Flag;
  readonly UseDefRetryCount?: Flag;
  readonly UseDefRetryTimeoutSecs?: Flag;
  readonly UseDefUser?: Flag;
}

/** Source step (automation API §2.5). Bounds: see the schema. */
export interface SourceStep extends HostStepFields {
  readonly FileMask?: string;
  readonly ExFile?: string;
  readonly ExFo?: string;
  readonly FolderType?: -1 | 1 | 4 | 10 | 110 | 19 | 119 | 99;
  /** 0 keep, 1 delete, 2 rename/move (RenameTo, DelRename apply only then: rule MF304). */
  readonly DeleteOrig?: 0 | 1 | 2;
  readonly RenameTo?: string;
  readonly DelRename?: Flag;
  readonly Account?: string;
  readonly AddCom?: string;
  readonly AddComAX?: string;
  readonly Bucket?: string;
  readonly ClientCertSHA1?: string;
  readonly ClientCertStore?: string;
  readonly ClientCertSubject?: string;
  readonly ClientKeyID?: string;
  readonly DLInteg?: 'never' | 'ifsure' | 'ignore' | 'always';
  readonly DestFileAttr?: string;
  readonly DownloadGroup?: string;
  readonly Format?: 'CSV' | 'XML';
  readonly MD5File?: string;
  readonly MD5Get?: 'IfPresent' | 'Required' | 'Never';
  readonly MDNFilenameToSend?: string;
  readonly MDNPath?: string;
  readonly PartnerName?: string;
  readonly SubjectMatch?: string;
  readonly AB?: 'ascii' | 'binary';
  readonly Sort?: 'Date,A' | 'Size,A' | 'Filename,A' | 'Date,D' | 'Size,D' | 'Filename,D';
  readonly SyDel?: 0 | 1 | 2;
  readonly XS?: Flag;
  readonly MxBy?: number;
  readonly MxFi?: number;
  readonly RescanSecs?: number;
  readonly Rsm?: Flag;
  readonly BlindDL?: Flag;
  readonly NewFilesOnly?: Flag;
  readonly Passive?: Flag;
  readonly RetryIfNoFiles?: Flag;
  readonly ReuseSSL?: Flag;
  readonly SearchSubdirs?: Flag;
  readonly SetFileAttr?: Flag;
  readonly SyF?: Flag;
  readonly SyT?: Flag;
  readonly UDMxBy?: Flag;
  readonly UDMxFi?: Flag;
  readonly Unzip?: Flag;
  readonly UseLCaseComp?: Flag;
  readonly UseWinCopyFileAPI?: Flag;
  readonly Criteria?: Criteria;
  readonly UseDefAB?: Flag;
  readonly UseDefBlindDL?: Flag;
  readonly UseDefBucket?: Flag;
  readonly UseDefClientCert?: Flag;
  readonly UseDefClientKey?: Flag;
  readonly UseDefDLInteg?: Flag;
  readonly UseDefMD5File?: Flag;
  readonly UseDefMD5Get?: Flag;
  readonly UseDefPartner?: Flag;
  readonly UseDefPassive?: Flag;
  readonly UseDefRescanSecs?: Flag;
  readonly UseDefReuseSSL?: Flag;
  readonly UseDefRsm?: Flag;
  readonly UseDefSetFileAttr?: Flag;
  readonly UseDefSort?: Flag;
  readonly UseDefWinCopyFileAPI?: Flag;
  readonly UseDefXS?: Flag;
}

export interface Criteria {
  readonly And?: { readonly comp: readonly Comparison[] };
  readonly Or?: { readonly comp: readonly Comparison[] };
  readonly comp?: readonly Comparison[];
}

export interface Comparison {
  readonly a: string;
  readonly b?: string;
  readonly test: 'DGT' | 'DLT' | 'MASK' | 'NEQ' | 'NGE' | 'NGT' | 'NLE' | 'NLT' | 'NNE' | 'NOTMASK';
}

export interface ProcessStep {
  /** Script by name (custom or standard); exactly one of Script/ScriptID (rule MF308). */
  readonly Script?: string;
  readonly ScriptID?: string;
  readonly Run?: string;
  readonly IsDest?: Flag;
  readonly Parameters?: Parameters;
}

/** Destination step: the reference lists HostID, Path, Type, FileName, OverwriteOrig; the rest mirror Source. */
export interface DestinationStep extends HostStepFields {
  readonly FileName?: string;
  readonly OverwriteOrig?: Flag;
}

// ------------------------------------------------------------------------------ ResourceGroupAcl

export { ACL_PERMISSIONS, FOLDER_PERMISSIONS, SHARE_PERMISSIONS } from '../vocabulary.js';
export type { AclPermission, FolderPermission, SharePermission } from '../vocabulary.js';
import type { AclPermission, FolderPermission, SharePermission } from '../vocabulary.js';

export interface ResourceGroupAclSpec {
  readonly resourceGroup: string;
  readonly userGroup: string;
  /** Granted permissions; every other one is 0. */
  readonly permissions: readonly AclPermission[];
}

// ----------------------------------------------------------------------------- FolderPermissions

export interface FolderPermissionsSpec {
  /** Create the folder under its (existing) parent when it is missing. */
  readonly createIfMissing?: { readonly inheritPermissions: 'None' | 'CopyOnly' | 'Always' };
  /** exact: unlisted entries are removed; additive: never removed. Non-editable entries are never touched. */
  readonly mode: 'exact' | 'additive';
  /** Compared as a set, keyed by user or group (case-insensitive). */
  readonly entries: readonly FolderEntry[];
}

/** Exactly one of `user` / `group`. Permissions not listed are false. */
export type FolderEntry = ({ readonly user: string; readonly group?: undefined } | { readonly group: string; readonly user?: undefined }) & {
  readonly permissions: readonly FolderPermission[];
  readonly sharePermissions?: readonly SharePermission[];
};

// ------------------------------------------------------------------------------------------ User

export type { UserAuthMethod, UserEmailFormat, UserNotification, UserPermission, UserStatus } from '../vocabulary.js';
import type { UserAuthMethod, UserEmailFormat, UserNotification, UserPermission, UserStatus } from '../vocabulary.js';

/**
 * A transfer user (schemas/user.schema.json); `metadata.name` is the username. A field the
 * manifest leaves out is not managed: its live value stays as it is and is never compared.
 */
export interface UserSpec {
  readonly fullName?: string;
  readonly email?: string;
  readonly permission?: UserPermission;
  readonly status?: UserStatus;
  readonly authMethod?: UserAuthMethod;
  readonly notes?: string;
  readonly emailFormat?: UserEmailFormat;
  readonly receivesNotification?: UserNotification;
  /** Bytes; 0: no quota. */
  readonly folderQuota?: number;
  readonly forceChangePassword?: boolean;
  /** Sent when the user is created, never compared afterwards (the API cannot move a home folder). */
  readonly homeFolderPath?: string;
  /** Write-only: a `${env:NAME}` / `${file:PATH}` reference, sent on create (and on update with `--rotate-passwords`), never read or compared. */
  readonly password?: string;
}

// ----------------------------------------------------------------------------------------- Group

/**
 * A group of the file transfer server (transfer-users-groups.md), named by `metadata.name`
 * (case-insensitive). The API creates groups and adds and removes members; it cannot change a
 * group's name or description, nor delete one.
 */
export interface GroupSpec {
  /** Sent when the group is created; a different live description cannot be changed (blocked). */
  readonly description?: string;
  /** exact: members the manifest does not list are removed; additive: never removed. */
  readonly mode: 'exact' | 'additive';
  /** Usernames, compared as a set without regard to case. */
  readonly members: readonly string[];
  /** observe: read and reported (and used for access review), never written. Absent: `manage`. */
  readonly manage?: 'manage' | 'observe';
}
