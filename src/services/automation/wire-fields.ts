/**
 * Which task fields hold what, as the automation reference lists them (spec/automation-api.md):
 * the normaliser reads every form of a value (docs/server-variants.md A-2…A-4) only where the
 * reference says what the field is, and leaves every other field exactly as the server sent it.
 * `test/services/automation-wire-fields.test.ts` holds these lists against the manifest schema.
 */

/** §2.4a: the task's own 0/1 fields. */
export const TASK_FLAG_FIELDS: ReadonlySet<string> = new Set(['AR', 'Active', 'UseDefStateCaching']);

/** §2.4a Schedule: 0/1 fields. */
export const SCHEDULE_FLAG_FIELDS: ReadonlySet<string> = new Set(['FailIfNoSuccessInSched', 'OnlyUntilFirstSuccess', 'RunEvenIfNotif']);

/** §2.4a Schedule: `Multi` (0, 1, 2). */
export const SCHEDULE_INTEGER_FIELDS: ReadonlySet<string> = new Set(['Multi']);

/** §2.5 "Fields 0/1" and "Use-host-default flags" (Source); §4.3 rule 6 `OverwriteOrig` (Destination). */
export const STEP_FLAG_FIELDS: ReadonlySet<string> = new Set([
  'BlindDL',
  'DelRename',
  'NewFilesOnly',
  'Passive',
  'RetryIfNoFiles',
  'ReuseSSL',
  'SearchSubdirs',
  'SetFileAttr',
  'SyF',
  'SyT',
  'UDMxBy',
  'UDMxFi',
  'Unzip',
  'UseLCaseComp',
  'UseWinCopyFileAPI',
  'UseDefAB',
  'UseDefBlindDL',
  'UseDefBucket',
  'UseDefClientCert',
  'UseDefClientKey',
  'UseDefConnTimeoutSecs',
  'UseDefDLInteg',
  'UseDefDataTimeoutSecs',
  'UseDefMD5File',
  'UseDefMD5Get',
  'UseDefPartner',
  'UseDefPassive',
  'UseDefRescanSecs',
  'UseDefRetryCount',
  'UseDefRetryTimeoutSecs',
  'UseDefReuseSSL',
  'UseDefRsm',
  'UseDefSetFileAttr',
  'UseDefSort',
  'UseDefUser',
  'UseDefWinCopyFileAPI',
  'UseDefXS',
  'OverwriteOrig',
]);

/** §2.5 integer table and numeric enumerations; §2.4a Process step `IsDest int`. */
export const STEP_INTEGER_FIELDS: ReadonlySet<string> = new Set([
  'ConnTimeoutSecs',
  'DataTimeoutSecs',
  'MxBy',
  'MxFi',
  'RescanSecs',
  'RetryCount',
  'RetryTimeoutSecs',
  'Rsm',
  'DeleteOrig',
  'FolderType',
  'SyDel',
  'IsDest',
]);

/** Keys holding an automation object id (§2.1 "ID string"): the object's own, or a reference to a host, script, date list or task. */
export const ID_FIELDS: ReadonlySet<string> = new Set(['ID', 'HostID', 'ScriptID', 'DateListID', 'TaskID']);
