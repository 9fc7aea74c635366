import type { FieldError } from './http.js';
import type { Json, JsonObject } from './json.js';
import { cloneJson, isJsonObject, showRejected } from './json.js';
import type { AclRecord, Variants } from './state.js';
import type { FieldRule, StepKind } from './validate-task.js';
import { DAY_NAMES, MIC_STEP_KEYS as MIC_STEP_NAMES, SHORT_DAY_NAMES } from './vocabulary.js';
import {
  DESTINATION_FIELD_RULES,
  HH_MM,
  PROCESS_FIELD_RULES,
  SCHEDULE_FLAGS,
  SOURCE_FIELD_RULES,
  STEP_KINDS,
  TASK_FLAGS,
  isStepKind,
} from './validate-task.js';

/*
 * The automation service's wire edge: stored objects are encoded into the readings the variants
 * name (answers), request bodies decoded from them (input). The input rule of the register: a
 * body may use the form the reference documents for input and the form the emulator answers
 * itself; any third form is a 422 naming the field. Range and existence checks stay in
 * validate-task.ts, which sees only the stored form.
 */

/** A field whose spelling a switch changes: ids, 0/1 flags, integers, day names, times. */
type WireKind = 'id' | 'flag' | 'integer' | 'day' | 'time';

/** The Steps Type model's member names (A §2.4a), by step kind. */
const MIC_STEP_KEYS: Readonly<Record<StepKind, string>> = MIC_STEP_NAMES;

const RULES_BY_KIND: Partial<Record<StepKind, Readonly<Record<string, FieldRule>>>> = {
  Source: SOURCE_FIELD_RULES,
  Destination: DESTINATION_FIELD_RULES,
  Process: PROCESS_FIELD_RULES,
};

/** The wire kind of a step field: ids and references, then the flag and integer rules of validate-task. */
function stepFieldKind(kind: StepKind, key: string): WireKind | undefined {
  if (
    key === 'ID' ||
    (key === 'HostID' && (kind === 'Source' || kind === 'Destination')) ||
    (key === 'ScriptID' && kind === 'Process') ||
    (key === 'TaskID' && kind === 'RunTask')
  )
    return 'id';
  const rule = RULES_BY_KIND[kind]?.[key];
  switch (rule?.kind) {
    case 'flag':
      return 'flag';
    case 'int':
      return 'integer';
    case 'enum':
      return rule.values.every((x) => typeof x === 'number') ? 'integer' : undefined;
    case 'string':
    case 'hostType':
    case 'criteria':
    case undefined:
      return undefined;
    default: {
      const never: never = rule;
      throw new Error(`unknown rule ${JSON.stringify(never)}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Values

/** One stored value in the variant's reading. */
export function encodeValue(kind: WireKind, value: Json, v: Variants): Json {
  switch (kind) {
    case 'id':
      // Only ids a number spells the same way back (no leading zeros, within 2^53).
      return v['automation.ids'] === 'number' && typeof value === 'string' && /^(0|[1-9][0-9]{0,14})$/.test(value) ? Number(value) : value;
    case 'flag': {
      if (value !== 0 && value !== 1) return value;
      const form = v['automation.flags'];
      switch (form) {
        case 'number':
          return value;
        case 'boolean':
          return value === 1;
        case 'string':
          return String(value);
        default: {
          const never: never = form;
          throw new Error(`unknown flags form ${String(never)}`);
        }
      }
    }
    case 'integer':
      return v['automation.integers'] === 'string' && typeof value === 'number' ? String(value) : value;
    case 'day': {
      const i = DAY_NAMES.indexOf(value as (typeof DAY_NAMES)[number]);
      return v['automation.days'] === 'short' && i >= 0 ? SHORT_DAY_NAMES[i]! : value;
    }
    case 'time': {
      if (typeof value !== 'string' || !HH_MM.test(value)) return value;
      const form = v['automation.times'];
      switch (form) {
        case 'padded':
          return value;
        case 'unpadded':
          return value.startsWith('0') ? value.slice(1) : value;
        case 'seconds':
          return `${value}:00`;
        default: {
          const never: never = form;
          throw new Error(`unknown times form ${String(never)}`);
        }
      }
    }
    default: {
      const never: never = kind;
      throw new Error(`unknown wire kind ${String(never)}`);
    }
  }
}

/** Collects the 422 errors of a body's forms. */
class Refusals {
  readonly errors: FieldError[] = [];
  refuse(field: string, value: unknown, message: string): void {
    this.errors.push({ field, rejected: showRejected(value), message });
  }
}

/**
 * One value of a body in the stored form. The documented form and the variant's own pass; a
 * third form is refused. Values of the right form but out of range pass on to validate-task.
 */
function decodeValue(kind: WireKind, value: Json, v: Variants, field: string, r: Refusals): Json {
  switch (kind) {
    case 'id': {
      if (typeof value === 'string') return value;
      const numbers = v['automation.ids'] === 'number';
      if (numbers && typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
      r.refuse(field, value, numbers ? 'must be an id: a string or a whole number' : 'must be an id string');
      return value;
    }
    case 'flag': {
      if (typeof value === 'number') return value;
      const form = v['automation.flags'];
      if (form === 'boolean' && typeof value === 'boolean') return value ? 1 : 0;
      if (form === 'string' && (value === '0' || value === '1')) return Number(value);
      r.refuse(field, value, form === 'boolean' ? 'must be 0 or 1 (or true/false)' : form === 'string' ? 'must be 0 or 1 (or "0"/"1")' : 'must be 0 or 1');
      return value;
    }
    case 'integer': {
      if (typeof value === 'number') return value;
      const strings = v['automation.integers'] === 'string';
      if (strings && typeof value === 'string' && /^-?[0-9]{1,15}$/.test(value)) return Number(value);
      r.refuse(field, value, strings ? 'must be an integer (a number or a digit string)' : 'must be an integer');
      return value;
    }
    case 'day': {
      // The reference documents no input form: only the answered one.
      if (v['automation.days'] === 'long') return value;
      const i = SHORT_DAY_NAMES.indexOf(value as (typeof SHORT_DAY_NAMES)[number]);
      if (i >= 0) return DAY_NAMES[i]!;
      r.refuse(field, value, `must be a day name: ${SHORT_DAY_NAMES.join(', ')}`);
      return value;
    }
    case 'time': {
      const form = v['automation.times'];
      if (form === 'padded' || typeof value !== 'string' || HH_MM.test(value)) return value;
      const unpadded = /^[0-9]:[0-5][0-9]$/;
      const seconds = /^([01][0-9]|2[0-3]):[0-5][0-9]:00$/;
      if (form === 'unpadded' && unpadded.test(value)) return `0${value}`;
      if (form === 'seconds' && seconds.test(value)) return value.slice(0, 5);
      r.refuse(field, value, form === 'unpadded' ? 'must be a time HH:mm or H:mm' : 'must be a time HH:mm or HH:mm:00');
      return value;
    }
    default: {
      const never: never = kind;
      throw new Error(`unknown wire kind ${String(never)}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Tasks: one walk over the fields a switch touches, in either direction

/** What differs between answering a task and reading one. */
interface TaskCodec {
  value(kind: WireKind, value: Json, field: string): Json;
  /** The step kind a step key names, or undefined (left as sent). */
  stepKind(key: string): StepKind | undefined;
  /** The key a step of this kind gets. */
  stepKey(kind: StepKind): string;
  /** A task's Group; undefined leaves it out. */
  group(value: Json): Json | undefined;
  dateListRefs(refs: Json[], field: string): Json[];
  /** The schedule after its fields, e.g. a Frequency left out because empty. */
  schedule(s: JsonObject): void;
}

function recodeFields(o: JsonObject, kinds: Readonly<Record<string, WireKind>>, path: string, c: TaskCodec): void {
  for (const [k, kind] of Object.entries(kinds)) {
    const value = o[k];
    if (value !== undefined && value !== null) o[k] = c.value(kind, value, `${path}${k}`);
  }
}

const TASK_KINDS: Readonly<Record<string, WireKind>> = { ID: 'id', ...Object.fromEntries(TASK_FLAGS.map((k) => [k, 'flag'])) };
const SCHEDULE_KINDS: Readonly<Record<string, WireKind>> = { ID: 'id', Multi: 'integer', ...Object.fromEntries(SCHEDULE_FLAGS.map((k) => [k, 'flag'])) };

function recodeSteps(steps: Json[], path: string, c: TaskCodec): Json[] {
  return steps.map((item, i) => {
    if (!isJsonObject(item) || Object.keys(item).length !== 1) return item;
    const key = Object.keys(item)[0]!;
    const kind = c.stepKind(key);
    const body = item[key];
    if (kind === undefined || !isJsonObject(body)) return item;
    const p = `${path}[${i}].${key}`;
    for (const [k, value] of Object.entries(body)) {
      const wire = stepFieldKind(kind, k);
      if (wire !== undefined && value !== null) body[k] = c.value(wire, value, `${p}.${k}`);
    }
    if (kind === 'For') recodeNested(body, `${p}.`, c);
    if (kind === 'If') {
      if (Array.isArray(body.When)) body.When.forEach((w, n) => recodeNested(w, `${p}.When[${n}].`, c));
      recodeNested(body.Otherwise, `${p}.Otherwise.`, c);
    }
    return { [c.stepKey(kind)]: body };
  });
}

/** The `steps` of a For body, an If branch or its Otherwise. */
function recodeNested(holder: Json | undefined, path: string, c: TaskCodec): void {
  if (isJsonObject(holder) && Array.isArray(holder.steps)) holder.steps = recodeSteps(holder.steps, `${path}steps`, c);
}

function recodeSchedule(s: JsonObject, path: string, c: TaskCodec): void {
  recodeFields(s, SCHEDULE_KINDS, path, c);
  if (isJsonObject(s.Days) && Array.isArray(s.Days.DayOfWeek))
    s.Days.DayOfWeek = s.Days.DayOfWeek.map((d, n) => c.value('day', d, `${path}Days.DayOfWeek[${n}]`));
  if (isJsonObject(s.Frequency) && Array.isArray(s.Frequency.Interval)) {
    s.Frequency.Interval.forEach((iv, n) => {
      if (isJsonObject(iv)) recodeFields(iv, { StartTime: 'time', EndTime: 'time' }, `${path}Frequency.Interval[${n}].`, c);
    });
  }
  if (Array.isArray(s.DateListRef)) s.DateListRef = c.dateListRefs(s.DateListRef, `${path}DateListRef`);
  c.schedule(s);
}

/** Walk a task (a copy the caller owns) and change every field a switch re-spells. */
function recodeTask(task: JsonObject, c: TaskCodec): void {
  recodeFields(task, TASK_KINDS, '', c);
  if (task.Group !== undefined && task.Group !== null) {
    const g = c.group(task.Group);
    if (g === undefined) delete task.Group;
    else task.Group = g;
  }
  if (isJsonObject(task.Schedules) && Array.isArray(task.Schedules.Schedule)) {
    task.Schedules.Schedule.forEach((s, i) => {
      if (isJsonObject(s)) recodeSchedule(s, `Schedules.Schedule[${i}].`, c);
    });
  }
  if (Array.isArray(task.steps)) task.steps = recodeSteps(task.steps, 'steps', c);
  if (isJsonObject(task.NextActions) && Array.isArray(task.NextActions.NextAction)) {
    task.NextActions.NextAction.forEach((n, i) => {
      if (isJsonObject(n)) recodeFields(n, { ID: 'id' }, `NextActions.NextAction[${i}].`, c);
    });
  }
}

/** `value` without empty strings, lists and objects (undefined when nothing is left); list items and parameter entries keep their place. */
function leaveOutEmpty(value: Json, key?: string): Json | undefined {
  if (value === '') return undefined;
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined;
    // A step keeps its kind key even when its body is empty: positions and kinds are the task.
    if (key === 'steps') return value.map((s) => (isJsonObject(s) ? Object.fromEntries(Object.entries(s).map(([k, b]) => [k, leaveOutEmpty(b) ?? {}])) : s));
    return value.map((item) => leaveOutEmpty(item) ?? item);
  }
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      // Parameter names are data: an entry stays even when all its strings are empty.
      const kept = key === 'Parameters' && isJsonObject(v) ? (leaveOutEmpty(v) ?? {}) : leaveOutEmpty(v, k);
      if (kept !== undefined) out[k] = kept;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  return value;
}

/** A rendered task (stored form, parameters and read-only fields already in place) in the variants' reading. */
export function encodeTask(view: JsonObject, v: Variants): JsonObject {
  const mic = v['automation.stepKeys'] === 'mic';
  recodeTask(view, {
    value: (kind, value) => encodeValue(kind, value, v),
    stepKind: (key) => (isStepKind(key) ? key : undefined),
    stepKey: (kind) => (mic ? MIC_STEP_KEYS[kind] : kind),
    group: (value) => (v['automation.group'] === 'string' && Array.isArray(value) && value.length <= 1 ? value[0] : value),
    dateListRefs: (refs) => refs.map((ref) => encodeDateListRef(ref, v)),
    schedule: () => undefined,
  });
  return v['automation.empty'] === 'absent' ? ((leaveOutEmpty(view) as JsonObject | undefined) ?? {}) : view;
}

function encodeDateListRef(ref: Json, v: Variants): Json {
  if (!isJsonObject(ref)) return ref;
  const list = encodeValue('id', ref.DateListID ?? '', v);
  const form = v['automation.dateListRef'];
  switch (form) {
    case 'datelistid':
      return { DateListID: list };
    case 'id':
      return { ID: list };
    case 'both':
      return ref.ID === undefined ? { DateListID: list } : { ID: encodeValue('id', ref.ID, v), DateListID: list };
    case 'string':
      return list;
    default: {
      const never: never = form;
      throw new Error(`unknown dateListRef form ${String(never)}`);
    }
  }
}

/** The keys of a `DateListRef` item in an object form, each with the stored key it fills; undefined for the bare id. */
function dateListRefKeys(form: Variants['automation.dateListRef']): Readonly<Record<string, string>> | undefined {
  switch (form) {
    case 'datelistid':
      return { DateListID: 'DateListID' };
    case 'id':
      return { ID: 'DateListID' };
    case 'both':
      return { ID: 'ID', DateListID: 'DateListID' };
    case 'string':
      return undefined;
    default: {
      const never: never = form;
      throw new Error(`unknown dateListRef form ${String(never)}`);
    }
  }
}

/** A `DateListRef` item in the stored form `{DateListID}` (`{ID, DateListID}` on `both`); only the answered form is taken. */
function decodeDateListRef(ref: Json, field: string, v: Variants, r: Refusals): Json {
  const keys = dateListRefKeys(v['automation.dateListRef']);
  if (keys === undefined) {
    if (typeof ref === 'string' || typeof ref === 'number') return { DateListID: decodeValue('id', ref, v, field, r) };
    r.refuse(field, ref, 'must be a date list id');
    return ref;
  }
  if (!isJsonObject(ref) || !Object.keys(ref).every((k) => Object.hasOwn(keys, k))) {
    r.refuse(field, ref, `must be {${Object.keys(keys).join(', ')}}`);
    return ref;
  }
  const out: JsonObject = {};
  for (const [k, value] of Object.entries(ref)) if (value !== null) out[keys[k]!] = decodeValue('id', value, v, `${field}.${k}`, r);
  return out;
}

const SHORT_STEP_KIND = new Map<string, StepKind>(STEP_KINDS.map((k) => [MIC_STEP_KEYS[k], k]));

/** A body in the stored form, and the 422 errors of the forms it used that are neither documented nor the variants' own (those values are left as sent). */
export interface Decoded<T> {
  readonly value: T;
  readonly errors: readonly FieldError[];
}

/** A task body in the stored form the validation reads. */
export function decodeTask(input: unknown, v: Variants): Decoded<unknown> {
  if (!isJsonObject(input)) return { value: input, errors: [] };
  const task = cloneJson(input);
  const r = new Refusals();
  const mic = v['automation.stepKeys'] === 'mic';
  recodeTask(task, {
    value: (kind, value, field) => decodeValue(kind, value, v, field, r),
    stepKind: (key) => (isStepKind(key) ? key : mic ? SHORT_STEP_KIND.get(key) : undefined),
    stepKey: (kind) => kind,
    group: (value) => (v['automation.group'] === 'string' && typeof value === 'string' ? [value] : value),
    dateListRefs: (refs, field) => refs.map((ref, n) => decodeDateListRef(ref, `${field}[${n}]`, v, r)),
    // A Frequency left out because it was empty is an empty one.
    schedule: (s) => {
      if (v['automation.empty'] === 'absent' && s.Frequency === undefined) s.Frequency = {};
    },
  });
  decodeParameterForm(task.Parameters, 'Parameters', v, r);
  forEachProcessStep(task.steps, 'steps', (body, path) => decodeParameterForm(body.Parameters, `${path}.Parameters`, v, r));
  return { value: task, errors: r.errors };
}

/** The list form `{Parameter: [...]}` is documented nowhere: only a `list` server takes it back. */
function decodeParameterForm(value: Json | undefined, field: string, v: Variants, r: Refusals): void {
  if (v['automation.parameters'] === 'map' && isJsonObject(value) && Object.keys(value).length === 1 && Array.isArray(value.Parameter)) {
    r.refuse(field, value, 'must be a map {name: {value, DisplayValue}}');
  }
}

function forEachProcessStep(steps: Json | undefined, path: string, visit: (body: JsonObject, path: string) => void): void {
  if (!Array.isArray(steps)) return;
  steps.forEach((item, i) => {
    if (!isJsonObject(item)) return;
    for (const [kind, body] of Object.entries(item)) {
      if (!isJsonObject(body)) continue;
      const p = `${path}[${i}].${kind}`;
      if (kind === 'Process') visit(body, p);
      forEachProcessStep(body.steps, `${p}.steps`, visit);
      if (Array.isArray(body.When)) body.When.forEach((w, n) => isJsonObject(w) && forEachProcessStep(w.steps, `${p}.When[${n}].steps`, visit));
      if (isJsonObject(body.Otherwise)) forEachProcessStep(body.Otherwise.steps, `${p}.Otherwise.steps`, visit);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Other objects

/** An object with an `ID` (host, script, date list, global parameter) in the variants' reading. */
export function encodeObjectId(o: JsonObject, v: Variants): JsonObject {
  return o.ID === undefined ? o : { ...o, ID: encodeValue('id', o.ID, v) };
}

/** A resource-group ACL as answered. */
export function encodeAcl(acl: AclRecord, v: Variants): JsonObject {
  const permissions: JsonObject = {};
  for (const [k, p] of Object.entries(acl.Permissions)) permissions[k] = encodeValue('flag', p, v);
  return { ACLID: encodeValue('id', acl.ACLID, v), ResourceGroupName: acl.ResourceGroupName, UserGroupName: acl.UserGroupName, Permissions: permissions };
}

/** An ACL body (POST, PUT) in the stored form. */
export function decodeAcl(body: JsonObject, v: Variants): Decoded<JsonObject> {
  const r = new Refusals();
  const out: JsonObject = { ...body };
  if (body.ACLID !== undefined && body.ACLID !== null) out.ACLID = decodeValue('id', body.ACLID, v, 'ACLID', r);
  if (isJsonObject(body.Permissions)) {
    const perms: JsonObject = {};
    for (const [k, p] of Object.entries(body.Permissions)) perms[k] = p === null ? p : decodeValue('flag', p, v, `Permissions.${k}`, r);
    out.Permissions = perms;
  }
  return { value: out, errors: r.errors };
}

/** The errors of a decoded body plus those its checks found on other fields (a refused form is reported once). */
export function withDecodeErrors(decoded: readonly FieldError[], checked: readonly FieldError[]): FieldError[] {
  const refused = new Set(decoded.map((e) => e.field));
  return [...decoded, ...checked.filter((e) => !refused.has(e.field))];
}
