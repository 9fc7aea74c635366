import type {
  AuditAttribution,
  AuditStatus,
  DriftedEntry,
  DriftedField,
  DriftedObject,
  DriftKind,
  DriftReport,
  EntryGrant,
  ExpiredAcknowledgement,
  UnmanagedObject,
  UnmanagedOmitted,
} from '../drift/model.js';
import type { FieldWords, InnerWords, JsonValue } from '../plan/model.js';
import { describeReason } from '../resources/reasons.js';
import type { ResourceKind, UnmanagedDetailOf } from '../kinds/kind.js';
import { EVERY_KIND, kindOf } from '../kinds/registry.js';
import { escapeControl, formatCount, formatInline } from './text.js';
import { displayValue, withInnerWords, withWords } from './values.js';
import { accountCheckNotes, privilegedCountText } from './drift-accounts.js';

// Shared by the text and markdown drift renderers: the words, independent of the medium.

/** Why a drifted object is as it is, in words (raw): the plan's reason, or the plan-time problem of a missing folder. */
export function driftedWhy(d: DriftedObject): string | undefined {
  return d.reason !== undefined ? describeReason(d.reason) : d.problem;
}

/** How a drifted object's line ends: `Task/x differs from its manifest`, `… is missing on the server`. */
export function driftPhrase(kind: DriftKind): string {
  switch (kind) {
    case 'changed':
      return 'differs from its manifest';
    case 'missing':
      return 'is missing on the server';
    case 'replace':
      return 'differs in a field that needs a replace to put back';
    case 'blocked':
      return 'differs, and the API cannot put it back';
    default: {
      const never: never = kind;
      throw new Error(`unknown drift kind ${String(never)}`);
    }
  }
}

/** `~` changed, `-` missing on the server, `-/+` replace, `!` blocked. */
export function driftSymbol(kind: DriftKind): string {
  switch (kind) {
    case 'changed':
      return '~';
    case 'missing':
      return '-';
    case 'replace':
      return '-/+';
    case 'blocked':
      return '!';
    default: {
      const never: never = kind;
      throw new Error(`unknown drift kind ${String(never)}`);
    }
  }
}

/** One-line value, or `(not set)` for an absent one; a folder entry's grant in words. */
export function valueText(value: JsonValue | undefined, words?: ValueWords): string {
  if (value === undefined) return '(not set)';
  const grant = asGrant(value);
  if (grant) return grantText(grant);
  return withWords(formatInline(withInnerWords(displayValue(value), words?.inner)), words?.form, words?.said);
}

/** What one side of a drifted field says in words: its own (`form`, `said`) and of the values inside it. */
export interface ValueWords {
  readonly form?: FieldWords['form'];
  readonly said?: string;
  readonly inner?: readonly InnerWords[];
}

/** The words of the `expected` or `actual` side of a drifted field. */
export function sideWords(field: DriftedField, side: 'expected' | 'actual'): ValueWords {
  return { ...(field.words !== undefined ? { form: field.words.form, said: field.words[side] } : {}), inner: field.innerWords?.[side] };
}

/** An acknowledged folder entry carries its grant as `{permissions, sharePermissions}`. */
function asGrant(value: JsonValue): EntryGrant | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  const list = (x: JsonValue | undefined) => Array.isArray(x) && x.every((v) => typeof v === 'string');
  if (keys.length !== 2 || !list(value.permissions) || !list(value.sharePermissions)) return undefined;
  return { permissions: value.permissions as string[], sharePermissions: value.sharePermissions as string[] };
}

/** `listFiles, readFiles; share: readFiles`, `no permissions`. */
export function grantText(grant: EntryGrant | undefined): string {
  if (grant === undefined) return '(no entry)';
  const perms = grant.permissions.map(escapeControl).join(', ');
  const share = grant.sharePermissions.map(escapeControl).join(', ');
  return `${perms === '' ? 'no permissions' : perms}${share === '' ? '' : `; share: ${share}`}`;
}

export function entryPhrase(e: DriftedEntry): string {
  switch (e.drift) {
    case 'missing':
      return 'missing on the server';
    case 'changed':
      return 'permissions differ';
    case 'extra':
      return 'on the server, not in the manifest';
    case 'blocked':
      return 'differs, not editable on the server';
    default: {
      const never: never = e.drift;
      throw new Error(`unknown entry drift ${String(never)}`);
    }
  }
}

/** `operator, 2026-11-22T10:04:00.000Z (Edit)`. */
export function attributionText(a: AuditAttribution): string {
  return `${escapeControl(a.user)}, ${escapeControl(a.time)}${a.action === '' ? '' : ` (${escapeControl(a.action)})`}`;
}

/** `acknowledgement expired 2026-01-31 (mftops.yaml:12:9): reason`. */
export function expiredText(e: ExpiredAcknowledgement): string {
  return `acknowledgement expired ${escapeControl(e.until)} (${escapeControl(e.where)})${e.reason === undefined ? '' : `: ${escapeControl(e.reason)}`}`;
}

/** What an unmanaged object is, in a line. */
export function unmanagedText(u: UnmanagedObject): string {
  return describeUnmanaged(u.detail);
}

function describeUnmanaged<K extends ResourceKind>(detail: UnmanagedDetailOf<K>): string {
  return kindOf(detail.kind as K).describeUnmanaged(detail, { escape: escapeControl, grant: grantText });
}

/**
 * The notes on who changed what, each said once: the audit report could not be read (for tasks
 * and ACLs alike), and a kind without one listed (its `unauditedNote`: folders, the transfer
 * service keeps no audit report to ask).
 */
export function attributionNotes(report: DriftReport): string[] {
  const notes: string[] = [];
  const audit = auditNote(report.audit);
  if (audit !== undefined) notes.push(audit);
  const listed = new Set([...report.drifted, ...report.unmanaged].map((o) => o.kind));
  for (const kind of EVERY_KIND) {
    const note = kindOf(kind).unauditedNote;
    if (note !== undefined && listed.has(kind)) notes.push(note);
  }
  if (report.accounts !== undefined) notes.push(...accountCheckNotes(report.accounts));
  return notes;
}

function auditNote(audit: AuditStatus): string | undefined {
  switch (audit.state) {
    case 'not-needed':
    case 'read':
      return undefined;
    case 'unreadable':
      return `${audit.message}; who changed what is not shown.`;
    default: {
      const never: never = audit;
      throw new Error(`unknown audit state ${String(never)}`);
    }
  }
}

/** `Drift: 2 objects differ, 1 unmanaged, 1 acknowledged.` or the in-sync sentence. */
export function driftSentence(report: DriftReport): string {
  const s = report.summary;
  if (report.status === 'in-sync') {
    return `In sync: the servers match the manifests${s.acknowledged > 0 ? ` (${formatCount(s.acknowledged)} acknowledged ${plural(s.acknowledged, 'difference')})` : ''}.`;
  }
  const parts = [`${formatCount(s.drifted)} ${plural(s.drifted, 'object')} ${s.drifted === 1 ? 'differs' : 'differ'}`, `${formatCount(s.unmanaged)} unmanaged`];
  const privileged = privilegedCountText(report.accounts);
  if (privileged !== undefined) parts.push(privileged);
  const denied = new Set(report.policy?.violations.filter((v) => v.severity === 'deny').map((v) => v.address)).size;
  if (denied > 0) parts.push(`${formatCount(denied)} ${plural(denied, 'object breaks', 'objects break')} a deny policy`);
  if (s.acknowledged > 0) parts.push(`${formatCount(s.acknowledged)} acknowledged`);
  if (s.expired > 0) parts.push(`${formatCount(s.expired)} with an expired acknowledgement`);
  return `Drift: ${parts.join(', ')}.`;
}

/** Why the report lists no unmanaged object, as a sentence. */
export function unmanagedOmittedSentence(reason: UnmanagedOmitted): string {
  switch (reason) {
    case 'partial-manifests':
      return 'Unmanaged objects are not listed: only part of the manifests was given, and the others may manage what these do not name (pass --prune to list them anyway).';
    default: {
      const never: never = reason;
      throw new Error(`unknown reason ${String(never)}`);
    }
  }
}

/** `12 managed objects compared, 10 in sync.` */
export function comparedSentence(report: DriftReport): string {
  const s = report.summary;
  return `${formatCount(s.managed)} managed ${plural(s.managed, 'object')} compared, ${formatCount(s.inSync)} in sync.`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}

/** `Task/x differs from its manifest`: the first line of a drifted object. */
export function driftedHeadline(d: DriftedObject): string {
  return `${escapeControl(d.address)} ${driftPhrase(d.drift)}`;
}

/**
 * How the printed commands name what the run was given, so that a line runs as printed when
 * copied: the configuration file when `--config` named one (absent: the default file, or
 * `MFTOPS_CONFIG`, which the same shell still has).
 */
export interface CommandContext {
  readonly config?: string;
}

/**
 * The two ways out of one drifted object: take the server's state into git (`drift --adopt`) or
 * put git's back on the server (`apply --target`, absent when apply cannot: a blocked difference,
 * a folder the plan cannot create). `--env` (and `--config`, when the run was given one) is
 * written so that the line runs as printed.
 */
export function waysOut(
  environment: string,
  d: Pick<DriftedObject, 'address' | 'action'>,
  command: CommandContext = {},
): { readonly adopt: string; readonly revert?: string } {
  const env = selection(environment, command);
  const target = shellWord(d.address);
  const adopt = `mftops drift ${env} --adopt ${target}`;
  switch (d.action) {
    case 'blocked':
    case 'no-op':
    case 'delete':
      return { adopt };
    case 'replace':
      return { adopt, revert: `mftops apply ${env} --target ${target} --allow-replace` };
    case 'create':
    case 'update':
      return { adopt, revert: `mftops apply ${env} --target ${target}` };
    default: {
      const never: never = d.action;
      throw new Error(`unknown action ${String(never)}`);
    }
  }
}

/** The ways out of an unmanaged object: write its manifest (`drift --adopt`), or delete it when its kind is pruned. */
export function unmanagedWaysOut(
  environment: string,
  u: Pick<UnmanagedObject, 'address' | 'pruned'>,
  command: CommandContext = {},
): { readonly adopt: string; readonly revert?: string } {
  const env = selection(environment, command);
  const target = shellWord(u.address);
  return { adopt: `mftops drift ${env} --adopt ${target}`, ...(u.pruned ? { revert: `mftops apply ${env} --target ${target} --allow-delete` } : {}) };
}

/** `--config FILE --env NAME`: the options that pick what the run read. */
function selection(environment: string, command: CommandContext): string {
  const env = `--env ${shellWord(environment)}`;
  return command.config === undefined ? env : `--config ${shellWord(command.config)} ${env}`;
}

/** A word a POSIX shell reads back as `text`: bare when safe, else single-quoted. */
function shellWord(text: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
