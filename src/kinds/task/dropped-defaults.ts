import { sameScalar } from '../../resources/common.js';

/**
 * The register of server defaults `mftops import` leaves out of the manifests it writes: values a
 * server gives a field left blank, so a manifest that does not write them means the same object.
 * docs/server-variants.md ("Defaults import leaves out") lists every row with its source, and a
 * test holds the two equal.
 *
 * Leaving a field out is safe both ways: plan compares only the fields a manifest sets (README,
 * "Plan"), so the plan after an import stays empty; and a create or replace sends the field
 * blank, so the server gives it the same default back. What it costs: a later change of that
 * field on the server is not drift, as for any field a manifest does not set.
 *
 * Only fields whose blank value is known or plain are here: task fields the emulator documents,
 * and 0/1 options whose 0 means "off" with no host-level twin. A `UseDef*` flag (and `UDMxBy`,
 * `UDMxFi`: "use the default" limits), an option a `UseDef*` flag takes from the host (`Passive`,
 * `ReuseSSL`, `BlindDL`, `SetFileAttr`, `UseWinCopyFileAPI`), counts, timeouts and `DeleteOrig`
 * stay as the server answers them: nothing says what a blank one becomes.
 */
export interface DroppedDefault {
  /** The part of a task the field belongs to; `step` is a Source or Destination step body. */
  readonly part: 'task' | 'schedule' | 'step';
  readonly field: string;
  /** The default, in the manifest's canonical form; other spellings (`false`, `"0"`) match too. */
  readonly value: number | string;
  /** Where the default comes from, as the register shows it. */
  readonly source: string;
}

const BLANK = 'A §4.3 rule 4 ("blank fields receive defaults"); the value: emulator SPEC rule 32';
const SEEN = (what: string) => `${what}; seen as the blank value in imports (issue 24)`;
const OFF = 'a 0/1 option whose 0 is off (A §2.4a/§2.5); the blank value is not shown: read as 0, as for NewFilesOnly';

export const DROPPED_DEFAULTS: readonly DroppedDefault[] = [
  { part: 'task', field: 'AR', value: 0, source: BLANK },
  { part: 'task', field: 'CAS', value: '', source: 'A §2.4a enum EMPTY, N, A; `EMPTY` and `""` are the blank value (register A-7)' },
  { part: 'task', field: 'CacheNames', value: 'random', source: 'A §2.4a "random (default)"' },
  { part: 'task', field: 'TT', value: '', source: BLANK },
  { part: 'task', field: 'UseDefStateCaching', value: 0, source: BLANK },
  { part: 'schedule', field: 'Multi', value: 0, source: SEEN('A §2.4a "0 = does not span midnight"') },
  ...['FailIfNoSuccessInSched', 'OnlyUntilFirstSuccess', 'RunEvenIfNotif'].map((field): DroppedDefault => ({ part: 'schedule', field, value: 0, source: OFF })),
  { part: 'step', field: 'NewFilesOnly', value: 0, source: SEEN('A §2.5 0/1 option') },
  { part: 'step', field: 'Unzip', value: 0, source: SEEN('A §2.5 0/1 option') },
  ...['DelRename', 'RetryIfNoFiles', 'SearchSubdirs', 'SyF', 'SyT', 'UseLCaseComp'].map(
    (field): DroppedDefault => ({ part: 'step', field, value: 0, source: OFF }),
  ),
];

const BY_PART = new Map<string, DroppedDefault>(DROPPED_DEFAULTS.map((d) => [`${d.part}.${d.field}`, d]));

/** Whether `value` of `field` is the register's default there (absent and null count: nothing to write). */
export function isDroppedDefault(part: DroppedDefault['part'], field: string, value: unknown): boolean {
  const d = BY_PART.get(`${part}.${field}`);
  if (d === undefined) return false;
  if (value === undefined || value === null) return true;
  if (d.field === 'CAS' && value === 'EMPTY') return true;
  return sameScalar(d.value, value);
}
