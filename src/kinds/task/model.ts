import type { DayOfWeek } from '../../vocabulary.js';
import { NAME_PATH, type JsonObject, type ManifestBase, type ResolvedName, type KindDocument } from '../model-base.js';

/**
 * The types of a Task (automation API §2.4a): its spec as the manifest loader leaves it, its
 * manifest, its desired object, its payload and what drift says of an unmanaged one. Listed in
 * `KindTypes` (src/kinds/kind-types.ts); re-exported by src/manifest/types.ts and
 * src/resources/model.ts under their old names.
 */

export interface TaskManifest extends ManifestBase {
  readonly kind: 'Task';
  readonly spec: TaskSpec;
}

/** A 0/1 field of the automation API. */
export type Flag = 0 | 1;

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

export interface DesiredTask {
  readonly manifest: TaskManifest;
  /**
   * The manifest's spec as an API task body, only the fields the manifest sets, in its order:
   * `Name` first; `Host` → `HostID` + `Type` (the host's wire type, e.g. `siLock`); `Script` →
   * `ScriptID`; `DateListRef` names → `[{DateListID}]`; `Group` names as the server spells them;
   * parameters `{name: {value}}` (a secret: its `${env:}` reference text and
   * `DisplayValue: "(suppressed)"`); passwords as reference text. Step and schedule indexes are
   * those of the manifest.
   */
  readonly body: JsonObject;
  /** The names resolved to server objects on the way (each once), for apply to check again. */
  readonly resolved: readonly ResolvedName[];
}

export interface TaskPayload {
  readonly kind: 'Task';
  /**
   * The complete task body to POST (create) or PUT (update): the live task with the manifest's
   * fields applied, so fields the manifest does not set keep their live values.
   */
  readonly body: JsonObject;
  /**
   * The names of the host, script and date-list ids in `body`, by kind and id, where the live state
   * names them: readers describe the body in names (a schedule line says `Bank Holidays 2026`,
   * not `303001`). Apply does not read it. Absent in plans of older versions.
   */
  readonly refNames?: RefNames;
}

/** Names by id, per kind of reference (see `TaskPayload.refNames`). */
export type RefNames = { readonly [K in RefKind]?: Readonly<Record<string, string>> };

/** What a `$ref` marker points at. */
export type RefKind = 'host' | 'script' | 'dateList';

/** An unmanaged task, in a line: its resource groups. */
export interface TaskUnmanagedDetail {
  readonly kind: 'Task';
  readonly groups: readonly string[];
}

/** How the manifest layer names and identifies its documents (`KindDocument`). */
export const TASK_DOCUMENT: KindDocument = { naming: 'name', identity: { paths: [NAME_PATH], describe: ([name]) => `Task \`${name}\`` } };
