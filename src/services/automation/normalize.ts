import { canonicalDayName, MIC_STEP_NAMES, SHORT_WEEK_DAYS, WEEK_DAYS } from '../../vocabulary.js';
import { isRecord } from '../../is-record.js';
import { clonePlainData } from '../../clone-json.js';
import type { Host, ResourceGroupAcl, Task, TaskParameters, UserGroupMembers } from './types.js';
import { ID_FIELDS, SCHEDULE_FLAG_FIELDS, SCHEDULE_INTEGER_FIELDS, STEP_FLAG_FIELDS, STEP_INTEGER_FIELDS, TASK_FLAG_FIELDS } from './wire-fields.js';

/**
 * The normalisation boundary of the automation service (docs/server-variants.md A-2…A-17):
 * every answer the client returns has been read here into the canonical form, and every body it
 * sends has been written here into the form that server was seen to use.
 *
 * Canonical: ids as strings; 0/1 fields and the reference's integer fields as numbers; `Group` a
 * list; `CAS` `""` for EMPTY; `Parameters` a map; a schedule's lists as lists, day names in full,
 * times `HH:mm`, `DateListRef` items `{DateListID, ID?}` (`ID` only where the server numbers its
 * references); step keys `Source`, `Process`, … Everything else is kept exactly as sent.
 */

/**
 * The forms one server was seen to answer in; a member is undefined until a value showed it.
 * Writes use the form seen, else the form the reference documents for input (the first one).
 */
export interface AutomationWireForms {
  ids?: 'string' | 'number';
  flags?: 'number' | 'boolean' | 'string';
  integers?: 'number' | 'string';
  days?: 'long' | 'short';
  times?: 'padded' | 'unpadded' | 'seconds';
  dateListRef?: 'datelistid' | 'id' | 'both' | 'string';
  parameters?: 'map' | 'list';
  cas?: 'blank' | 'EMPTY';
}

// --------------------------------------------------------------------------------- traversal

/** What happens to each kind of value on the way in or out; the traversal is shared. */
interface TaskCodec {
  id(value: unknown): unknown;
  flag(value: unknown): unknown;
  integer(value: unknown): unknown;
  /** `Days.DayOfWeek`. */
  days(value: unknown): unknown;
  time(value: unknown): unknown;
  /** A schedule's `DateListRef`. */
  dateListRefs(value: unknown): unknown;
  parameters(value: unknown): unknown;
  cas(value: unknown): unknown;
  group(value: unknown): unknown;
  /** A list the reference shows as an array (a single object may stand for a one-item list). */
  list(value: unknown): unknown;
  stepKey(key: string): string;
}

/** Applies `c` to a task, in place: the caller owns `t` (a parsed answer, or a copy). */
function codeTask(t: Record<string, unknown>, c: TaskCodec): void {
  for (const key of Object.keys(t)) {
    const v = t[key];
    if (v === undefined) continue;
    if (ID_FIELDS.has(key)) t[key] = c.id(v);
    else if (TASK_FLAG_FIELDS.has(key)) t[key] = c.flag(v);
    else if (key === 'NextEID') t[key] = c.integer(v);
    else if (key === 'Group') t[key] = c.group(v);
    else if (key === 'CAS') t[key] = c.cas(v);
    else if (key === 'Parameters') t[key] = c.parameters(v);
    else if (key === 'Schedules' && isRecord(v)) codeSchedules(v, c);
    else if (key === 'steps') t[key] = codeSteps(v, c);
  }
}

function codeSchedules(s: Record<string, unknown>, c: TaskCodec): void {
  if (s.Schedule === undefined) return;
  const list = c.list(s.Schedule);
  s.Schedule = list;
  if (!Array.isArray(list)) return;
  for (const schedule of list) {
    if (!isRecord(schedule)) continue;
    for (const key of Object.keys(schedule)) {
      const v = schedule[key];
      if (v === undefined) continue;
      if (key === 'ID') schedule[key] = c.id(v);
      else if (SCHEDULE_FLAG_FIELDS.has(key)) schedule[key] = c.flag(v);
      else if (SCHEDULE_INTEGER_FIELDS.has(key)) schedule[key] = c.integer(v);
      else if (key === 'Days' && isRecord(v) && v.DayOfWeek !== undefined) v.DayOfWeek = c.days(v.DayOfWeek);
      else if (key === 'DateListRef') schedule[key] = c.dateListRefs(v);
      else if (key === 'Frequency' && isRecord(v) && v.Interval !== undefined) {
        const intervals = c.list(v.Interval);
        v.Interval = intervals;
        if (Array.isArray(intervals)) for (const iv of intervals) if (isRecord(iv)) codeInterval(iv, c);
      }
    }
  }
}

function codeInterval(iv: Record<string, unknown>, c: TaskCodec): void {
  for (const key of ['StartTime', 'EndTime']) if (iv[key] !== undefined) iv[key] = c.time(iv[key]);
}

/** Steps, and the steps nested in `For` and `If` (gaps.md "Steps nest"), at any depth. */
function codeSteps(steps: unknown, c: TaskCodec): unknown {
  const list = c.list(steps);
  if (!Array.isArray(list)) return list;
  return list.map((step) => {
    if (!isRecord(step)) return step;
    const keys = Object.keys(step);
    if (keys.length !== 1) return step;
    const key = c.stepKey(keys[0]!);
    const body = step[keys[0]!];
    if (isRecord(body)) codeStepBody(body, c);
    return key === keys[0] ? step : { [key]: body };
  });
}

function codeStepBody(b: Record<string, unknown>, c: TaskCodec): void {
  for (const key of Object.keys(b)) {
    const v = b[key];
    if (v === undefined) continue;
    if (ID_FIELDS.has(key)) b[key] = c.id(v);
    else if (STEP_FLAG_FIELDS.has(key)) b[key] = c.flag(v);
    else if (STEP_INTEGER_FIELDS.has(key)) b[key] = c.integer(v);
    else if (key === 'Parameters') b[key] = c.parameters(v);
    else if (key === 'steps') b[key] = codeSteps(v, c);
    else if (key === 'When') {
      const whens = c.list(v);
      b[key] = whens;
      if (Array.isArray(whens)) for (const w of whens) if (isRecord(w) && w.steps !== undefined) w.steps = codeSteps(w.steps, c);
    } else if (key === 'Otherwise' && isRecord(v) && v.steps !== undefined) v.steps = codeSteps(v.steps, c);
  }
}

// ------------------------------------------------------------------------------------- reading

const SHORT_KEYS: ReadonlyMap<string, string> = new Map(Object.entries(MIC_STEP_NAMES).map(([short, mic]) => [mic, short]));

function readingCodec(seen: AutomationWireForms): TaskCodec {
  return {
    id: (v) => readId(v, seen),
    flag: (v) => readFlag(v, seen),
    integer: (v) => readInteger(v, seen),
    days(v) {
      const list = typeof v === 'string' ? [v] : v;
      if (!Array.isArray(list)) return v;
      return list.map((d) => {
        if (typeof d !== 'string') return d;
        const day = canonicalDayName(d);
        if (day !== undefined) seen.days ??= d.trim().length === 3 ? 'short' : 'long';
        return day ?? d;
      });
    },
    time: (v) => readTime(v, seen),
    dateListRefs(v) {
      const list = typeof v === 'string' || isRecord(v) ? [v] : v;
      return Array.isArray(list) ? list.map((r) => readDateListRef(r, seen)) : v;
    },
    parameters(v) {
      const map = normalizeParameters(v);
      if (isRecord(v) && Object.keys(v).length > 0) seen.parameters ??= map !== v ? 'list' : 'map';
      return map;
    },
    cas(v) {
      if (v === 'EMPTY') {
        seen.cas ??= 'EMPTY';
        return '';
      }
      if (v === '') seen.cas ??= 'blank';
      return v;
    },
    group: (v) => (typeof v === 'string' ? (v === '' ? [] : [v]) : v === null ? [] : v),
    list: (v) => (isRecord(v) ? [v] : v === null ? [] : v),
    stepKey: (k) => SHORT_KEYS.get(k) ?? k,
  };
}

function readId(v: unknown, seen: AutomationWireForms): unknown {
  if (typeof v === 'number' && Number.isFinite(v)) {
    seen.ids ??= 'number';
    return String(v);
  }
  if (typeof v === 'string' && v !== '') seen.ids ??= 'string';
  return v;
}

function readFlag(v: unknown, seen: AutomationWireForms): unknown {
  if (typeof v === 'boolean') {
    seen.flags ??= 'boolean';
    return v ? 1 : 0;
  }
  if (v === 0 || v === 1) {
    seen.flags ??= 'number';
    return v;
  }
  if (typeof v === 'string') {
    const t = v.trim().toLowerCase();
    const n = t === '1' || t === 'true' ? 1 : t === '0' || t === 'false' ? 0 : undefined;
    if (n !== undefined) {
      seen.flags ??= 'string';
      return n;
    }
  }
  return v;
}

function readInteger(v: unknown, seen: AutomationWireForms): unknown {
  if (typeof v === 'number') {
    seen.integers ??= 'number';
    return v;
  }
  if (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v)) {
    seen.integers ??= 'string';
    return Number(v);
  }
  return v;
}

const TIME = /^\s*(\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?\s*$/;

/** `9:05`, `09:05`, `09:05:00` → `09:05`. Only an hour below 10 tells padded from unpadded. */
function readTime(v: unknown, seen: AutomationWireForms): unknown {
  if (typeof v !== 'string') return v;
  const m = TIME.exec(v);
  if (!m) return v;
  const [, h, min, sec] = m;
  if (sec !== undefined) seen.times ??= 'seconds';
  else if (h!.length === 1) seen.times ??= 'unpadded';
  else if (h!.startsWith('0')) seen.times ??= 'padded';
  return `${h!.padStart(2, '0')}:${min}`;
}

/**
 * `{DateListID}`, `{ID}` (the date list's id), `{ID, DateListID}` (`ID` the reference's own
 * number) or a bare id → `{DateListID, ID?}`.
 */
function readDateListRef(r: unknown, seen: AutomationWireForms): unknown {
  if (typeof r === 'string' || typeof r === 'number') {
    seen.dateListRef ??= 'string';
    return { DateListID: String(readId(r, seen)) };
  }
  if (!isRecord(r)) return r;
  const out: Record<string, unknown> = { ...r };
  if (r.DateListID !== undefined) {
    seen.dateListRef ??= r.ID !== undefined ? 'both' : 'datelistid';
    out.DateListID = readId(r.DateListID, seen);
    if (r.ID !== undefined) out.ID = readId(r.ID, seen);
  } else if (r.ID !== undefined) {
    seen.dateListRef ??= 'id';
    out.DateListID = readId(r.ID, seen);
    delete out.ID;
  }
  return out;
}

/** A task as the server answered it, made canonical in place (the caller owns the parsed body). */
export function readTask(raw: Record<string, unknown>, seen: AutomationWireForms): Task {
  codeTask(raw, readingCodec(seen));
  return raw as Task;
}

/** A resource-group ACL: `ACLID` a string, each permission 0 or 1. */
export function readAcl(raw: Record<string, unknown>, seen: AutomationWireForms): ResourceGroupAcl {
  const out: Record<string, unknown> = { ...raw, ACLID: String(readId(raw.ACLID, seen) ?? '') };
  if (isRecord(raw.Permissions)) {
    const perms: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(raw.Permissions)) perms[k] = readFlag(v, seen);
    out.Permissions = perms;
  } else out.Permissions = {};
  return out as ResourceGroupAcl;
}

/** The member-list fields of a user group we accept, in the order they are looked for. */
const USER_GROUP_MEMBER_FIELDS = ['Members', 'members', 'Users', 'users'] as const;
/** The username fields of a member given as an object. */
const MEMBER_NAME_FIELDS = ['Username', 'username', 'Name', 'name', 'UserName'] as const;

/**
 * A user group's name and members: members as usernames or `{Username}`/`{username}`/`{Name}`
 * objects, a list or a single one (a one-item list some servers unwrap); no members field at all:
 * `members` undefined (unknown). A group without a name is no group (undefined).
 */
export function readUserGroupMembers(raw: Record<string, unknown>): UserGroupMembers | undefined {
  const name = typeof raw.Name === 'string' ? raw.Name : typeof raw.name === 'string' ? raw.name : undefined;
  if (name === undefined || name === '') return undefined;
  const field = USER_GROUP_MEMBER_FIELDS.find((f) => raw[f] !== undefined && raw[f] !== null);
  if (field === undefined) return { name };
  const value = raw[field];
  const items = Array.isArray(value) ? value : [value];
  const members: string[] = [];
  for (const item of items) {
    const username =
      typeof item === 'string' ? item : isRecord(item) ? MEMBER_NAME_FIELDS.map((f) => item[f]).find((v): v is string => typeof v === 'string') : undefined;
    if (username !== undefined && username !== '') members.push(username);
  }
  return { name, members };
}

/** A script, date list or global parameter: `ID` a string. */
export function readNamedObject<T extends Record<string, unknown>>(raw: T, seen: AutomationWireForms): T {
  return raw.ID === undefined ? raw : { ...raw, ID: readId(raw.ID, seen) };
}

// ------------------------------------------------------------------------------------- writing

function writingCodec(forms: Readonly<AutomationWireForms>): TaskCodec {
  return {
    id: (v) => (forms.ids === 'number' && typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : v),
    flag: (v) => writeFlag(v, forms),
    integer: (v) => (forms.integers === 'string' && typeof v === 'number' ? String(v) : v),
    days(v) {
      if (forms.days !== 'short' || !Array.isArray(v)) return v;
      return v.map((d) => {
        const i = typeof d === 'string' ? WEEK_DAYS.indexOf(canonicalDayName(d) ?? ('' as never)) : -1;
        return i < 0 ? d : SHORT_WEEK_DAYS[i];
      });
    },
    time(v) {
      const m = typeof v === 'string' ? /^(\d{2}):(\d{2})$/.exec(v) : null;
      if (!m) return v;
      if (forms.times === 'unpadded') return `${Number(m[1])}:${m[2]}`;
      if (forms.times === 'seconds') return `${m[1]}:${m[2]}:00`;
      return v;
    },
    dateListRefs: (v) => (Array.isArray(v) ? v.map((r) => writeDateListRef(r, forms)) : v),
    parameters: (v) => (forms.parameters === 'list' ? parameterList(v) : v),
    cas: (v) => (v === '' && forms.cas === 'EMPTY' ? 'EMPTY' : v),
    group: (v) => v,
    list: (v) => v,
    stepKey: (k) => k,
  };
}

function writeFlag(v: unknown, forms: Readonly<AutomationWireForms>): unknown {
  if (v !== 0 && v !== 1) return v;
  switch (forms.flags) {
    case 'boolean':
      return v === 1;
    case 'string':
      return String(v);
    case 'number':
    case undefined:
      return v;
    default: {
      const never: never = forms.flags;
      throw new Error(`unknown flag form ${String(never)}`);
    }
  }
}

function writeDateListRef(r: unknown, forms: Readonly<AutomationWireForms>): unknown {
  if (!isRecord(r) || r.DateListID === undefined) return r;
  const idOf = (x: unknown) => (forms.ids === 'number' && typeof x === 'string' && /^\d{1,15}$/.test(x) ? Number(x) : x);
  const { DateListID, ID, ...rest } = r;
  switch (forms.dateListRef) {
    case 'string':
      return idOf(DateListID);
    case 'id':
      return { ...rest, ID: idOf(DateListID) };
    case 'both':
      return { ...rest, ...(ID !== undefined ? { ID: idOf(ID) } : {}), DateListID: idOf(DateListID) };
    case 'datelistid':
    case undefined:
      return { ...rest, DateListID: idOf(DateListID) };
    default: {
      const never: never = forms.dateListRef;
      throw new Error(`unknown DateListRef form ${String(never)}`);
    }
  }
}

/** `{name: {value, …}}` → `{Parameter: [{Name: name, value, …}]}` (the variant of gaps.md "Parameters"). */
function parameterList(v: unknown): unknown {
  if (!isRecord(v) || 'Parameter' in v) return v;
  return { Parameter: Object.entries(v).map(([Name, p]) => (isRecord(p) ? { Name, ...p } : { Name, value: p })) };
}

/** A canonical task as this server writes it: a new object, the caller's untouched. */
export function writeTask(task: Task, forms: Readonly<AutomationWireForms>): Record<string, unknown> {
  const copy = clonePlainData(task) as Record<string, unknown>;
  codeTask(copy, writingCodec(forms));
  return copy;
}

/** ACL permissions (canonical 0/1) as this server writes them. */
export function writeAclPermissions(perms: Readonly<Record<string, unknown>>, forms: Readonly<AutomationWireForms>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(perms).map(([k, v]) => [k, writeFlag(v, forms)]));
}

// ------------------------------------------------------------------------------- other shapes

/**
 * A host from the wire: wrapped `{"SSHFTP": {...}}` (lists, and some single reads) or flat. The
 * type name is kept as sent (`siLock` and `xferLock` both pass). A flat host carries its type in
 * `Type`/`HostType`/`type` if at all; else `hint` (the `type=` asked for) or `unknown`.
 */
export function unwrapHost(raw: unknown, hint?: string): Host | undefined {
  if (!isRecord(raw)) return undefined;
  const keys = Object.keys(raw);
  if (keys.length === 1) {
    const type = keys[0]!;
    const inner = raw[type];
    if (isRecord(inner)) return withType(inner, type);
  }
  const declared = [raw.type, raw.Type, raw.HostType].find((t): t is string => typeof t === 'string' && t !== '');
  return withType(raw, declared ?? hint ?? 'unknown');
}

function withType(host: Record<string, unknown>, type: string): Host {
  return { ...host, ID: idString(host.ID), Name: typeof host.Name === 'string' ? host.Name : '', type };
}

function idString(id: unknown): string {
  return typeof id === 'string' ? id : typeof id === 'number' ? String(id) : '';
}

/**
 * Parameters in map form. The variant `{Parameter: [{Name, value}]}` (or a single object instead
 * of the array) becomes `{Name: {value}}`; a map that merely has a parameter called `Parameter`
 * is left alone.
 */
export function normalizeParameters(p: unknown): unknown {
  if (!isRecord(p) || !('Parameter' in p)) return p;
  const raw = p.Parameter;
  const list = Array.isArray(raw) ? raw : [raw];
  if (!list.every((e) => isRecord(e) && typeof e.Name === 'string')) return p;
  const out: Record<string, Record<string, unknown>> = {};
  for (const e of list as Record<string, unknown>[]) {
    const { Name, ...rest } = e;
    out[Name as string] = rest;
  }
  return out satisfies TaskParameters;
}

const ON = /^(enabled|enable|running|started|start|on|active|true|1)$/i;
const OFF = /^(disabled|disable|stopped|stop|off|inactive|false|0)$/i;

/** The scheduler status body (unknown shape): `{enabled|Enabled|status}` or a bare value. */
export function readSchedulerStatus(body: unknown): boolean | undefined {
  const fromValue = (v: unknown): boolean | undefined => {
    if (typeof v === 'boolean') return v;
    if (v === 0 || v === 1) return v === 1;
    if (typeof v === 'string') return ON.test(v.trim()) ? true : OFF.test(v.trim()) ? false : undefined;
    return undefined;
  };
  if (!isRecord(body)) return fromValue(body);
  for (const key of ['enabled', 'Enabled', 'status', 'Status']) {
    const v = fromValue(body[key]);
    if (v !== undefined) return v;
  }
  return undefined;
}
