import { structuredPatch } from 'diff';
import { Document } from 'yaml';
import { canonicalizeQuoting, TO_STRING_OPTIONS } from '../manifest/yaml-scalars.js';
import { FOLDER_PERMISSIONS, SHARE_PERMISSIONS } from '../manifest/types.js';
import { EVERY_KIND } from '../kinds/registry.js';
import type {
  Action,
  Change,
  EntryChange,
  EntryPermissions,
  FieldChange,
  InnerWords,
  JsonValue,
  Plan,
  PlanSummary,
  PruneOff,
  ResourceKind,
} from '../plan/model.js';
import { escapeControl, formatCount, formatInline } from './text.js';
export { escapeControl, formatCount, formatInline } from './text.js';
import { describeSchedules, NOT_SCHEDULED, readSchedule, readSchedules } from './schedule-words.js';
import { displayValue, parseFieldPath, withInnerWords, withWords } from './values.js';

// Shared by the text and markdown plan renderers: what a change looks like, independent of the medium.

/** The Terraform-style symbol of an action (no-ops are never listed, so theirs is blank). */
export function symbolOf(action: Action): string {
  switch (action) {
    case 'create':
      return '+';
    case 'update':
      return '~';
    case 'replace':
      return '-/+';
    case 'delete':
      return '-';
    case 'blocked':
      return '!';
    case 'no-op':
      return ' ';
    default: {
      const never: never = action;
      throw new Error(`unknown action ${String(never)}`);
    }
  }
}

/** How the header line of an object ends: `Task/x will be updated`. */
export function actionPhrase(action: Action): string {
  switch (action) {
    case 'create':
      return 'will be created';
    case 'update':
      return 'will be updated';
    case 'replace':
      return 'must be replaced';
    case 'delete':
      return 'will be deleted';
    case 'blocked':
      return 'is blocked';
    case 'no-op':
      return 'is unchanged';
    default: {
      const never: never = action;
      throw new Error(`unknown action ${String(never)}`);
    }
  }
}

/** The actions a reviewer sees listed, in the order counts are given. */
export const LISTED_ACTIONS = ['create', 'update', 'replace', 'delete', 'blocked'] as const satisfies readonly Action[];

/** `Plan: 2 to create, 3 to update, 1 to replace, 0 to delete, 1 blocked.` */
export function planSentence(summary: PlanSummary): string {
  return `Plan: ${formatCount(summary.create)} to create, ${formatCount(summary.update)} to update, ${formatCount(summary.replace)} to replace, ${formatCount(summary.delete)} to delete, ${formatCount(summary.blocked)} blocked.`;
}

export const NO_CHANGES = 'No changes. The servers match the manifests.';

/** Why the plan prunes nothing although the environment prunes `off.kinds`, as a sentence. */
export function pruneOffSentence(off: PruneOff): string {
  switch (off.reason) {
    case 'partial-manifests':
      return 'Prune is off: only part of the manifests was given (pass --prune to prune anyway).';
    case 'disabled':
      return 'Prune is off for this run (--no-prune).';
    default: {
      const never: never = off.reason;
      throw new Error(`unknown prune-off reason ${String(never)}`);
    }
  }
}

/** Counts per action for each kind present in the plan, in manifest-kind order. */
export function countByKind(changes: readonly Change[]): { kind: ResourceKind; counts: PlanSummary }[] {
  const byKind = new Map<ResourceKind, { [A in Action]: number }>();
  for (const c of changes) {
    let counts = byKind.get(c.kind);
    if (counts === undefined) {
      counts = { create: 0, update: 0, replace: 0, delete: 0, 'no-op': 0, blocked: 0 };
      byKind.set(c.kind, counts);
    }
    counts[c.action]++;
  }
  return EVERY_KIND.flatMap((kind) => {
    const counts = byKind.get(kind);
    return counts === undefined ? [] : [{ kind, counts }];
  });
}

/** Widest `path: before → after` line kept on one line; longer values become blocks. */
const INLINE_WIDTH = 120;

/**
 * One field difference, ready to draw. `symbol`: `+` the field is set where it was not, `-` it is
 * removed, `~` it changes. `inline` values are one-line JSON; a `block` is a unified diff of the
 * two values' text (strings as they are, anything else as indented JSON), each line starting with
 * ` `, `+`, `-` or `@@` (hunk headers only when both sides exist).
 */
export type FieldView = {
  readonly symbol: '+' | '-' | '~';
  readonly path: string;
  readonly forcesReplace: boolean;
  /** `FILE:LINE` of the `kind: Patch` that gave the value (its final origin), when one did. */
  readonly origin?: string;
} & (
  | { readonly form: 'sensitive' }
  | { readonly form: 'inline'; readonly before?: string; readonly after?: string }
  | { readonly form: 'block'; readonly lines: readonly string[] }
);

/** `Variables: partner = "acme", retries = 5.`: the values the manifests were read with (never secrets). */
export function variablesSentence(variables: NonNullable<Plan['variables']>): string {
  return `Variables: ${Object.entries(variables)
    .map(([name, value]) => `${escapeControl(name)} = ${escapeControl(JSON.stringify(value))}`)
    .join(', ')}.`;
}

/** The comment after a field's line: it forces a replacement, a patch gave its value. */
export function fieldNote(view: FieldView): string {
  return `${view.forcesReplace ? ' # forces replacement' : ''}${view.origin !== undefined ? ` # from ${view.origin}` : ''}`;
}

/** ` # from FILE:LINE` after a folder entry's line when a patch wrote it; else nothing. */
export function originNote(origin: EntryChange['origin']): string {
  return origin === undefined ? '' : ` # from ${escapeControl(`${origin.file}:${origin.line}`)}`;
}

export function viewField(change: FieldChange, action: Action): FieldView {
  const field = displayField(change);
  const symbol =
    field.before === undefined && field.after !== undefined
      ? '+'
      : field.after === undefined && field.before !== undefined
        ? '-'
        : field.before === undefined
          ? action === 'create'
            ? '+'
            : action === 'delete'
              ? '-'
              : '~'
          : '~';
  const base = {
    symbol,
    path: escapeControl(field.path),
    forcesReplace: field.forcesReplace === true,
    ...(field.origin !== undefined ? { origin: escapeControl(`${field.origin.file}:${field.origin.line}`) } : {}),
  } as const;
  if (field.sensitive === true) return { ...base, form: 'sensitive' };
  const multiline = (v: JsonValue | undefined) => typeof v === 'string' && v.includes('\n');
  if (!multiline(field.before) && !multiline(field.after)) {
    const before = field.before === undefined ? undefined : withWords(formatInline(field.before), field.words?.form, field.words?.before);
    const after = field.after === undefined ? undefined : withWords(formatInline(field.after), field.words?.form, field.words?.after);
    if (base.path.length + (before?.length ?? 0) + (after?.length ?? 0) + 5 <= INLINE_WIDTH) {
      return { ...base, form: 'inline', ...(before === undefined ? {} : { before }), ...(after === undefined ? {} : { after }) };
    }
  }
  return { ...base, form: 'block', lines: blockLines(field.before, field.after) };
}

/**
 * The field with its values as a reader sees them: markers in words, and (`inner`) the codes and
 * flags inside them too; schedule words read the values themselves, so they ask for no `inner`.
 */
function displayField(field: FieldChange, inner = true): FieldChange {
  const show = (value: JsonValue, words: readonly InnerWords[] | undefined) => (inner ? withInnerWords(displayValue(value), words) : displayValue(value));
  return {
    ...field,
    ...(field.before !== undefined ? { before: show(field.before, field.innerWords?.before) } : {}),
    ...(field.after !== undefined ? { after: show(field.after, field.innerWords?.after) } : {}),
  };
}

function blockText(value: JsonValue): string {
  return typeof value === 'string' ? value : formatJsonLines(value, 0).join('\n');
}

/** Widest line of a JSON block before a value is spread over several lines. */
const BLOCK_WIDTH = 80;

/** Indented JSON where any part that fits on one line stays on one line. */
function formatJsonLines(value: JsonValue, indent: number, prefix = ''): string[] {
  const pad = ' '.repeat(indent);
  const one = formatInline(value);
  if (value === null || typeof value !== 'object' || indent + prefix.length + one.length <= BLOCK_WIDTH) return [`${pad}${prefix}${one}`];
  const entries: [string, JsonValue][] = Array.isArray(value)
    ? value.map((v) => ['', v])
    : Object.entries(value).map(([k, v]) => [`${escapeControl(JSON.stringify(k))}: `, v]);
  if (entries.length === 0) return [`${pad}${prefix}${one}`];
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  const lines = [`${pad}${prefix}${open}`];
  entries.forEach(([key, v], i) => {
    const inner = formatJsonLines(v, indent + 2, key);
    if (i < entries.length - 1) inner[inner.length - 1] += ',';
    lines.push(...inner);
  });
  lines.push(`${pad}${close}`);
  return lines;
}

function blockLines(before: JsonValue | undefined, after: JsonValue | undefined): string[] {
  const clean = (line: string) => escapeControl(line);
  if (before === undefined || after === undefined) {
    const value = before ?? after;
    if (value === undefined) return [];
    const sign = before === undefined ? '+' : '-';
    return blockText(value)
      .split('\n')
      .map((l) => `${sign}${clean(l)}`);
  }
  const beforeText = blockText(before);
  const afterText = blockText(after);
  const patch = structuredPatch('before', 'after', beforeText, afterText, undefined, undefined, { context: 3 });
  // Hunk headers only help when some lines are left out.
  const whole =
    patch.hunks.length === 1 && patch.hunks[0]!.oldLines === beforeText.split('\n').length && patch.hunks[0]!.newLines === afterText.split('\n').length;
  const lines: string[] = [];
  let changed = false;
  for (const h of patch.hunks) {
    if (!whole) lines.push(`@@ -${hunkRange(h.oldStart, h.oldLines)} +${hunkRange(h.newStart, h.newLines)} @@`);
    for (const l of h.lines) {
      if (l.startsWith('\\')) continue; // "\ No newline at end of file": noise for a field value
      if (l.startsWith('+') || l.startsWith('-')) changed = true;
      lines.push(`${l.slice(0, 1)}${clean(l.slice(1))}`);
    }
  }
  if (!changed) lines.push(' (only the line break at the end differs)');
  return lines;
}

function hunkRange(start: number, count: number): string {
  return count === 1 ? String(start) : `${start},${count}`;
}

// ------------------------------------------------------------------------------ removed content

/**
 * What a delete removes (`Change.removes`) as the lines of the manifest `spec` that would declare
 * it, YAML as `mftops import` writes it, markers in words (`(sensitive)`); empty when the change
 * does not say. Renderers prefix each line with `-`, as Terraform does for a destroy.
 */
export function removedLines(change: Change): string[] {
  if (change.removes === undefined) return [];
  const doc = new Document(displayValue(change.removes));
  canonicalizeQuoting(doc);
  return doc
    .toString(TO_STRING_OPTIONS)
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => escapeControl(l));
}

// ----------------------------------------------------------------------------------- schedules

/** A schedule difference in words: `before` absent when the object or the schedule is new. */
export interface ScheduleWords {
  /** `Schedules`, or `Schedules.Schedule[1]` when only an item can be described. */
  readonly label: string;
  readonly before?: string;
  readonly after?: string;
}

/**
 * The schedules of a task change in words. Leaf differences (`…Interval[0].StartTime`) are put
 * back onto the schedules apply will send (the task payload) to recover the whole before and
 * after; without a payload only whole `Schedule` items can be described.
 */
export function describeScheduleChange(change: Change): ScheduleWords[] {
  if (change.kind !== 'Task') return [];
  const fields = change.fields
    .filter((f) => f.sensitive !== true && (f.path === 'Schedules' || f.path.startsWith('Schedules.')))
    .map((f) => displayField(f, false));
  if (fields.length === 0) return [];
  const whole = fields.find((f) => f.path === 'Schedules');
  if (whole !== undefined) {
    const words = wordsOf('Schedules', change.action, readSchedulesOrNone(whole.before), readSchedulesOrNone(whole.after));
    return words.after === undefined && words.before === undefined ? [] : [words];
  }
  const payload = change.payload?.kind === 'Task' ? change.payload : undefined;
  const body = payload?.body;
  const names = payload?.refNames?.dateList;
  const after = body === undefined ? undefined : readSchedules(body.Schedules, names);
  if (body !== undefined && after !== undefined) {
    const before = revertFields({ Schedules: body.Schedules ?? null }, fields);
    const beforeSchedules = before === undefined ? undefined : readSchedules(before.Schedules, names);
    if (beforeSchedules !== undefined) return [wordsOf('Schedules', change.action, describeSchedules(beforeSchedules), describeSchedules(after))];
  }
  const out: ScheduleWords[] = [];
  for (const f of fields) {
    if (!/^Schedules\.Schedule\[\d+\]$/.test(f.path)) continue;
    const b = f.before === undefined ? undefined : readSchedule(f.before);
    const a = f.after === undefined ? undefined : readSchedule(f.after);
    if ((f.before !== undefined && b === undefined) || (f.after !== undefined && a === undefined)) continue;
    out.push(
      wordsOf(
        f.path,
        'update',
        b === undefined ? undefined : describeSchedules({ Schedule: [b] }),
        a === undefined ? undefined : describeSchedules({ Schedule: [a] }),
      ),
    );
  }
  return out;
}

/** `A → B`, `A` (new), `A → removed`. */
export function scheduleText(words: ScheduleWords): string {
  if (words.before !== undefined && words.after !== undefined) return `${words.before} → ${words.after}`;
  if (words.after !== undefined) return words.after;
  return `${words.before ?? ''} → removed`;
}

function readSchedulesOrNone(value: JsonValue | undefined): string | undefined {
  if (value === undefined) return NOT_SCHEDULED;
  const s = readSchedules(value);
  return s === undefined ? undefined : describeSchedules(s);
}

function wordsOf(label: string, action: Action, before: string | undefined, after: string | undefined): ScheduleWords {
  const out: { label: string; before?: string; after?: string } = { label: escapeControl(label) };
  // For a new task "Not scheduled → …" says nothing: the object did not exist.
  if (before !== undefined && action !== 'create' && before !== after) out.before = before;
  if (after !== undefined) out.after = after;
  return out;
}

type Path = (string | number)[];

type Mutable = Record<string, unknown> | unknown[];

/** The value before the change: `after` with each field's `before` put back; undefined if a path does not fit. */
function revertFields(after: Record<string, JsonValue>, fields: readonly FieldChange[]): Record<string, unknown> | undefined {
  const root = structuredClone(after) as Record<string, unknown>;
  const removals: Path[] = [];
  for (const f of fields) {
    const path = parseFieldPath(f.path);
    if (f.before === undefined) {
      removals.push(path);
      continue;
    }
    if (!setAt(root, path, structuredClone(f.before))) return undefined;
  }
  // Lists compare by position, so added items are a tail: remove from the highest index down.
  removals.sort((a, b) => Number(b[b.length - 1]) - Number(a[a.length - 1]));
  for (const path of removals) if (!removeAt(root, path)) return undefined;
  return root;
}

function containerAt(root: Mutable, path: Path, create: boolean): Mutable | undefined {
  let node: unknown = root;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    const holder = node as Record<string | number, unknown>;
    if (holder[key] === undefined || holder[key] === null) {
      if (!create) return undefined;
      holder[key] = typeof path[i + 1] === 'number' ? [] : {};
    }
    node = holder[key];
    if (typeof node !== 'object' || node === null) return undefined;
  }
  return node as Mutable;
}

function setAt(root: Mutable, path: Path, value: unknown): boolean {
  const last = path[path.length - 1];
  const parent = containerAt(root, path, true);
  if (parent === undefined || last === undefined) return false;
  if (Array.isArray(parent) !== (typeof last === 'number')) return false;
  (parent as Record<string | number, unknown>)[last] = value;
  return true;
}

function removeAt(root: Mutable, path: Path): boolean {
  const last = path[path.length - 1];
  const parent = containerAt(root, path, false);
  if (parent === undefined || last === undefined) return false;
  if (Array.isArray(parent) && typeof last === 'number') parent.splice(last, 1);
  else delete (parent as Record<string | number, unknown>)[last];
  return true;
}

// -------------------------------------------------------------------------------- folder entries

/** `User "alice"`, `Group "Acme Partners"`. */
export function principalLabel(entry: EntryChange): string {
  return `${entry.principal.type} ${escapeControl(JSON.stringify(entry.principal.name))}`;
}

/** A permission column of the matrix: a folder permission or a share permission. */
export interface PermissionColumn {
  readonly set: 'permissions' | 'sharePermissions';
  readonly name: string;
}

/**
 * A permission cell: `granted`/`denied` unchanged, `added`/`removed` by this change. A blocked
 * entry shows what the server has, since apply will not touch it.
 */
export type CellState = 'granted' | 'denied' | 'added' | 'removed';

/** Every folder permission, then names outside the vocabulary, then the share permissions in use. */
export function permissionColumns(entries: readonly EntryChange[]): PermissionColumn[] {
  const seen = { permissions: new Set<string>(), sharePermissions: new Set<string>() };
  for (const e of entries) {
    for (const p of [e.before, e.after]) {
      if (p === undefined) continue;
      for (const n of p.permissions) seen.permissions.add(n);
      for (const n of p.sharePermissions) seen.sharePermissions.add(n);
    }
  }
  const known = FOLDER_PERMISSIONS as readonly string[];
  const knownShare = SHARE_PERMISSIONS as readonly string[];
  return [
    ...known.map((name) => ({ set: 'permissions' as const, name })),
    ...[...seen.permissions]
      .filter((n) => !known.includes(n))
      .sort()
      .map((name) => ({ set: 'permissions' as const, name })),
    ...knownShare.filter((n) => seen.sharePermissions.has(n)).map((name) => ({ set: 'sharePermissions' as const, name })),
    ...[...seen.sharePermissions]
      .filter((n) => !knownShare.includes(n))
      .sort()
      .map((name) => ({ set: 'sharePermissions' as const, name })),
  ];
}

export function cellState(entry: EntryChange, column: PermissionColumn): CellState {
  const has = (p: EntryPermissions | undefined) => p !== undefined && p[column.set].includes(column.name);
  switch (entry.action) {
    case 'create':
      return has(entry.after) ? 'added' : 'denied';
    case 'delete':
      return has(entry.before) ? 'removed' : 'denied';
    case 'update': {
      const b = has(entry.before);
      const a = has(entry.after);
      return a && b ? 'granted' : a ? 'added' : b ? 'removed' : 'denied';
    }
    case 'no-op':
      return has(entry.after ?? entry.before) ? 'granted' : 'denied';
    case 'blocked':
      return has(entry.before ?? entry.after) ? 'granted' : 'denied';
    default: {
      const never: never = entry.action;
      throw new Error(`unknown entry action ${String(never)}`);
    }
  }
}

/** `listFiles, readFiles, +writeFiles, -deleteFiles; share permissions: readFiles` for one entry (text renderer). */
export function describeEntryPermissions(entry: EntryChange): string {
  const columns = permissionColumns([entry]);
  const part = (set: PermissionColumn['set']) =>
    columns
      .filter((c) => c.set === set)
      .flatMap((c) => {
        const state = cellState(entry, c);
        const name = escapeControl(c.name);
        // On a created or deleted entry the line's own symbol already says it all.
        if (state === 'denied') return [];
        if (state === 'granted' || entry.action === 'create' || entry.action === 'delete') return [name];
        return [state === 'added' ? `+${name}` : `-${name}`];
      })
      .join(', ');
  const perms = part('permissions');
  const share = part('sharePermissions');
  return `${perms === '' ? 'no permissions' : perms}${share === '' ? '' : `; share permissions: ${share}`}`;
}

/** The entry-level symbol (entries have no replace). */
export function entrySymbol(entry: EntryChange): string {
  return symbolOf(entry.action);
}
