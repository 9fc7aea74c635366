import type { FieldError } from './http.js';
import type { Json, JsonObject } from './json.js';
import { dropNulls, isJsonObject, showRejected } from './json.js';
import type { AutomationState, HostRecord, HostType, Variants } from './state.js';
import { HOST_TYPES } from './state.js';

/** How one step field is checked. */
export type FieldRule =
  | { readonly kind: 'string' }
  /** 0/1 enumerated integer. */
  | { readonly kind: 'flag' }
  | { readonly kind: 'int'; readonly min: number; readonly max?: number }
  | { readonly kind: 'enum'; readonly values: readonly (string | number)[] }
  /** A host type key, the transfer-server type spelled as `automation.hostType` says. */
  | { readonly kind: 'hostType' }
  | { readonly kind: 'criteria' };

const STRING: FieldRule = { kind: 'string' };
const FLAG: FieldRule = { kind: 'flag' };
const int = (min: number, max?: number): FieldRule => (max === undefined ? { kind: 'int', min } : { kind: 'int', min, max });
const oneOf = (...values: (string | number)[]): FieldRule => ({ kind: 'enum', values });
const SORTS = oneOf('Date,A', 'Size,A', 'Filename,A', 'Date,D', 'Size,D', 'Filename,D');

/** Every field of a Source step (automation §2.5); any other key is refused. */
export const SOURCE_FIELD_RULES: Readonly<Record<string, FieldRule>> = {
  // string fields
  Account: STRING,
  AddCom: STRING,
  AddComAX: STRING,
  Bucket: STRING,
  ClientCertSHA1: STRING,
  ClientCertStore: STRING,
  ClientCertSubject: STRING,
  ClientKeyID: STRING,
  DestFileAttr: STRING,
  DownloadGroup: STRING,
  ExFile: STRING,
  ExFo: STRING,
  FileMask: STRING,
  FolderID: STRING,
  FolderName: STRING,
  HostID: STRING,
  ID: STRING,
  MD5File: STRING,
  MDNFilenameToSend: STRING,
  MDNPath: STRING,
  PartnerName: STRING,
  Password: STRING,
  Path: STRING,
  RenameTo: STRING,
  SubjectMatch: STRING,
  Username: STRING,
  XS: STRING,
  DLInteg: oneOf('never', 'ifsure', 'ignore', 'always'),
  // integers with bounds
  ConnTimeoutSecs: int(0, 32000),
  DataTimeoutSecs: int(0, 32000),
  MxBy: int(0),
  MxFi: int(0, 99999),
  RescanSecs: int(0, 999),
  RetryCount: int(0, 32000),
  RetryTimeoutSecs: int(0, 32000),
  Rsm: int(0, 1),
  // enumerations
  AB: oneOf('ascii', 'binary'),
  DeleteOrig: oneOf(0, 1, 2),
  FolderType: oneOf(-1, 1, 4, 10, 110, 19, 119, 99),
  Format: oneOf('CSV', 'XML'),
  MD5Get: oneOf('IfPresent', 'Required', 'Never'),
  Sort: SORTS,
  SyDel: oneOf(0, 1, 2),
  Type: { kind: 'hostType' },
  Criteria: { kind: 'criteria' },
  // 0/1
  BlindDL: FLAG,
  DelRename: FLAG,
  NewFilesOnly: FLAG,
  Passive: FLAG,
  RetryIfNoFiles: FLAG,
  ReuseSSL: FLAG,
  SearchSubdirs: FLAG,
  SetFileAttr: FLAG,
  SyF: FLAG,
  SyT: FLAG,
  UDMxBy: FLAG,
  UDMxFi: FLAG,
  Unzip: FLAG,
  UseLCaseComp: FLAG,
  UseWinCopyFileAPI: FLAG,
  // use-host-default flags
  UseDefAB: FLAG,
  UseDefBlindDL: FLAG,
  UseDefBucket: FLAG,
  UseDefClientCert: FLAG,
  UseDefClientKey: FLAG,
  UseDefConnTimeoutSecs: FLAG,
  UseDefDLInteg: FLAG,
  UseDefDataTimeoutSecs: FLAG,
  UseDefMD5File: FLAG,
  UseDefMD5Get: FLAG,
  UseDefPartner: FLAG,
  UseDefPassive: FLAG,
  UseDefRescanSecs: FLAG,
  UseDefRetryCount: FLAG,
  UseDefRetryTimeoutSecs: FLAG,
  UseDefReuseSSL: FLAG,
  UseDefRsm: FLAG,
  UseDefSetFileAttr: FLAG,
  UseDefSort: FLAG,
  UseDefUser: FLAG,
  UseDefWinCopyFileAPI: FLAG,
  UseDefXS: FLAG,
};

/** Known fields of the opaque step kinds; other keys are kept as sent. */
export const DESTINATION_FIELD_RULES: Readonly<Record<string, FieldRule>> = {
  ...SOURCE_FIELD_RULES,
  FileName: STRING,
  OverwriteOrig: FLAG,
};
export const PROCESS_FIELD_RULES: Readonly<Record<string, FieldRule>> = { ID: STRING, Run: STRING, ScriptID: STRING, IsDest: int(0) };

/** The 0/1 fields of a task and of a schedule (A §2.4a). */
export const TASK_FLAGS = ['Active', 'AR', 'UseDefStateCaching'] as const;
export const SCHEDULE_FLAGS = ['FailIfNoSuccessInSched', 'OnlyUntilFirstSuccess', 'RunEvenIfNotif'] as const;

const COMP_TESTS = ['DGT', 'DLT', 'MASK', 'NEQ', 'NGE', 'NGT', 'NLE', 'NLT', 'NNE', 'NOTMASK'] as const;

/** Step kinds: keys of a step item. */
export const STEP_KINDS = ['Source', 'Process', 'Destination', 'Email', 'For', 'If', 'RunTask', 'UpdOrig'] as const;
export type StepKind = (typeof STEP_KINDS)[number];
export function isStepKind(key: string): key is StepKind {
  return (STEP_KINDS as readonly string[]).includes(key);
}

/** Task fields accepted on input; read-only ones are accepted and dropped. */
const TASK_FIELDS = [
  'ID',
  'Name',
  'Group',
  'Active',
  'AR',
  'CAS',
  'CacheNames',
  'TT',
  'UseDefStateCaching',
  'NextEID',
  'Info',
  'Schedules',
  'Parameters',
  'NextActions',
  'steps',
];
export const TASK_READ_ONLY_FIELDS = ['Renamed', 'xAddEditDelete', 'xAlter', 'xRun', 'Scheduled', 'Watched'];
/** Stored key order (and so the order of GET output). */
export const TASK_KEY_ORDER = [
  'ID',
  'Name',
  'Group',
  'Active',
  'AR',
  'CAS',
  'CacheNames',
  'TT',
  'UseDefStateCaching',
  'NextEID',
  'Renamed',
  'Info',
  'Schedules',
  'Parameters',
  'NextActions',
  'steps',
];

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
export const HH_MM = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;

/** The DisplayValue of a suppressed secret parameter. */
export const SUPPRESSED = '(suppressed)';

/** How a task body is being taken. `seed` may hold advanced (TT=COS) tasks. */
export type TaskMode = 'create' | 'update' | 'seed';

export interface TaskContext {
  readonly state: AutomationState;
  /** The host type spelling and whether date-list references are numbered (`automation.dateListRef=both`). */
  readonly variants: Variants;
  readonly mode: TaskMode;
  /** The stored task (update): its Group stays, its secrets survive a suppressed echo. */
  readonly existing?: JsonObject;
}

export type TaskCheck = { readonly ok: true; readonly task: JsonObject } | { readonly ok: false; readonly errors: FieldError[] };

class Issues {
  readonly list: FieldError[] = [];
  fail(field: string, rejected: unknown, message: string): void {
    this.list.push({ field, rejected: showRejected(rejected), message });
  }
}

/** Host type keys accepted when the transfer server is spelled `xferType`: the other spelling is unknown. */
export function hostTypesFor(xferType: Variants['automation.hostType']): HostType[] {
  const other: HostType = xferType === 'siLock' ? 'xferLock' : 'siLock';
  return HOST_TYPES.filter((t) => t !== other);
}

function checkRule(rule: FieldRule, value: Json, field: string, issues: Issues, xferType: Variants['automation.hostType']): boolean {
  const before = issues.list.length;
  switch (rule.kind) {
    case 'string':
      if (typeof value !== 'string') issues.fail(field, value, 'must be a string');
      break;
    case 'flag':
      if (value !== 0 && value !== 1) issues.fail(field, value, 'must be 0 or 1');
      break;
    case 'int':
      if (typeof value !== 'number' || !Number.isInteger(value) || value < rule.min || (rule.max !== undefined && value > rule.max)) {
        issues.fail(field, value, rule.max === undefined ? `must be an integer of at least ${rule.min}` : `must be an integer from ${rule.min} to ${rule.max}`);
      }
      break;
    case 'enum':
      if (!rule.values.includes(value as string | number)) issues.fail(field, value, `must be one of ${rule.values.map((v) => JSON.stringify(v)).join(', ')}`);
      break;
    case 'hostType': {
      const allowed = hostTypesFor(xferType);
      if (typeof value !== 'string' || !(allowed as string[]).includes(value)) issues.fail(field, value, `must be a host type: ${allowed.join(', ')}`);
      break;
    }
    case 'criteria':
      checkCriteria(value, field, issues);
      break;
    default: {
      const never: never = rule;
      throw new Error(`unknown rule ${JSON.stringify(never)}`);
    }
  }
  return issues.list.length === before;
}

function checkCriteria(value: Json, field: string, issues: Issues): void {
  if (!isJsonObject(value)) return issues.fail(field, value, 'must be an object with And, Or or comp');
  for (const [k, v] of Object.entries(value)) {
    const f = `${field}.${k}`;
    if (k === 'And' || k === 'Or') checkCriteria(v, f, issues);
    else if (k === 'comp') {
      if (!Array.isArray(v)) {
        issues.fail(f, v, 'must be an array of {a, b, test}');
        continue;
      }
      v.forEach((c, i) => {
        const cf = `${f}[${i}]`;
        if (!isJsonObject(c)) return issues.fail(cf, c, 'must be an object {a, b, test}');
        for (const [ck, cv] of Object.entries(c)) {
          if (ck === 'a' || ck === 'b') {
            if (typeof cv !== 'string') issues.fail(`${cf}.${ck}`, cv, 'must be a string');
          } else if (ck === 'test') {
            if (!(COMP_TESTS as readonly Json[]).includes(cv)) issues.fail(`${cf}.test`, cv, `must be one of ${COMP_TESTS.join(', ')}`);
          } else issues.fail(`${cf}.${ck}`, cv, 'is not a comp field (a, b, test)');
        }
      });
    } else issues.fail(f, v, 'is not a Criteria field (And, Or, comp)');
  }
}

function findHost(state: AutomationState, id: string): HostRecord | undefined {
  return state.hosts.find((h) => h.fields.ID === id);
}

/** Check fields against a rule table; `strict` refuses keys not in the table. */
function checkFields(
  body: JsonObject,
  rules: Readonly<Record<string, FieldRule>>,
  path: string,
  issues: Issues,
  xferType: Variants['automation.hostType'],
  strict: boolean,
): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(body)) {
    const rule = rules[k];
    if (!rule) {
      if (strict) issues.fail(`${path}.${k}`, v, 'is not a field of this step');
      else out[k] = v;
      continue;
    }
    if (checkRule(rule, v, `${path}.${k}`, issues, xferType)) out[k] = v;
  }
  return out;
}

/** HostID must name an existing host; a missing Type is the host's, a given one must match it. */
function checkHostRef(out: JsonObject, path: string, c: Ctx): void {
  const id = out.HostID;
  if (id === undefined) return c.issues.fail(`${path}.HostID`, '', 'HostID is required');
  if (typeof id !== 'string') return;
  const host = findHost(c.task.state, id);
  if (!host) return c.issues.fail(`${path}.HostID`, id, 'no host has this ID');
  if (out.Type === undefined) out.Type = host.type;
  else if (typeof out.Type === 'string' && out.Type !== host.type) c.issues.fail(`${path}.Type`, out.Type, `must be ${host.type}, the type of host ${id}`);
}

/**
 * A step password sent back as `(suppressed)`, or not sent at all, keeps the stored one of the
 * same step (by ID): a server that hides passwords must keep them when they are not sent back.
 */
function keepStoredPassword(out: JsonObject, path: string, c: Ctx): void {
  if (out.Password !== SUPPRESSED && out.Password !== undefined) return;
  const stored = typeof out.ID === 'string' ? c.oldStepPasswords.get(out.ID) : undefined;
  if (stored !== undefined) out.Password = stored;
  else if (out.Password === SUPPRESSED)
    c.issues.fail(`${path}.Password`, SUPPRESSED, 'a suppressed password can only be sent back for an existing step (by its ID)');
}

interface Ctx {
  readonly task: TaskContext;
  readonly issues: Issues;
  /** Stored Process steps by step ID, for secret parameters echoed back suppressed. */
  readonly oldStepParams: ReadonlyMap<string, JsonObject>;
  /** Stored Source/Destination step passwords by step ID, for passwords echoed back suppressed. */
  readonly oldStepPasswords: ReadonlyMap<string, string>;
}

/** One parameter as stored: the value is kept even when secret. */
export interface StoredParameter extends JsonObject {
  Name: string;
  value: string;
  Secret: 0 | 1;
}

/** The stored entries of a `{Parameter: [...]}` block. */
export function storedParameters(block: Json | undefined): StoredParameter[] {
  if (!isJsonObject(block) || !Array.isArray(block.Parameter)) return [];
  return block.Parameter.filter(isJsonObject) as StoredParameter[];
}

/**
 * Parameters in either input form — map `{name: {value, DisplayValue, Secret?}}` or legacy
 * `{Parameter: [{Name, value, DisplayValue?, Secret?}]}` — to the stored legacy-like form.
 */
function normalizeParameters(value: Json | undefined, path: string, c: Ctx, previous: JsonObject | undefined): JsonObject {
  if (value === undefined) return { Parameter: [] };
  if (!isJsonObject(value)) {
    c.issues.fail(path, value, 'must be an object mapping names to {value, DisplayValue}');
    return { Parameter: [] };
  }
  const raw: { name: string; body: Json; field: string }[] = [];
  if (Object.keys(value).length === 1 && Array.isArray(value.Parameter)) {
    value.Parameter.forEach((p, i) => {
      const field = `${path}.Parameter[${i}]`;
      if (!isJsonObject(p) || typeof p.Name !== 'string' || p.Name === '') return c.issues.fail(field, p, 'must be an object with a Name');
      const { Name, ...rest } = p;
      raw.push({ name: Name, body: rest, field });
    });
  } else {
    for (const [name, body] of Object.entries(value)) raw.push({ name, body, field: `${path}.${name}` });
  }
  const old = new Map(storedParameters(previous).map((p) => [p.Name, p]));
  const out: StoredParameter[] = [];
  for (const { name, body, field } of raw) {
    if (!isJsonObject(body)) {
      c.issues.fail(field, body, 'must be an object {value, DisplayValue}');
      continue;
    }
    let ok = true;
    for (const k of Object.keys(body)) {
      if (k !== 'value' && k !== 'DisplayValue' && k !== 'Secret') {
        c.issues.fail(`${field}.${k}`, body[k], 'is not a parameter field (value, DisplayValue, Secret)');
        ok = false;
      }
    }
    const v = body.value ?? '';
    if (typeof v !== 'string') {
      c.issues.fail(`${field}.value`, v, 'must be a string');
      ok = false;
    }
    const display = body.DisplayValue;
    if (display !== undefined && typeof display !== 'string') {
      c.issues.fail(`${field}.DisplayValue`, display, 'must be a string');
      ok = false;
    }
    const s = body.Secret;
    if (s !== undefined && s !== 0 && s !== 1 && s !== true && s !== false) {
      c.issues.fail(`${field}.Secret`, s, 'must be 0 or 1');
      ok = false;
    }
    if (out.some((p) => p.Name === name)) {
      c.issues.fail(field, name, 'duplicate parameter name');
      ok = false;
    }
    if (!ok) continue;
    const prev = old.get(name);
    const secret: 0 | 1 = s !== undefined ? (s === 1 || s === true ? 1 : 0) : prev ? prev.Secret : display === SUPPRESSED ? 1 : 0;
    const echoed = v === '' && display === SUPPRESSED && prev !== undefined && prev.Secret === 1;
    out.push({ Name: name, value: echoed ? prev.value : (v as string), Secret: secret });
  }
  return { Parameter: out };
}

function normalizeStepList(value: Json | undefined, path: string, c: Ctx): JsonObject[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    c.issues.fail(path, value, 'must be an array of steps');
    return [];
  }
  const out: JsonObject[] = [];
  value.forEach((item, i) => {
    const p = `${path}[${i}]`;
    if (!isJsonObject(item)) return c.issues.fail(p, item, 'a step must be an object with one key: the step kind');
    const keys = Object.keys(item);
    if (keys.length !== 1) return c.issues.fail(p, keys.join(','), 'a step has exactly one key (Source, Process, Destination, …)');
    const kind = keys[0]!;
    if (!isStepKind(kind)) return c.issues.fail(`${p}.${kind}`, kind, `unknown step kind; one of ${STEP_KINDS.join(', ')}`);
    const body = item[kind];
    if (!isJsonObject(body)) return c.issues.fail(`${p}.${kind}`, body ?? null, 'a step body must be an object');
    out.push({ [kind]: normalizeStep(kind, body, `${p}.${kind}`, c) });
  });
  return out;
}

function normalizeStep(kind: StepKind, body: JsonObject, path: string, c: Ctx): JsonObject {
  const xferType = c.task.variants['automation.hostType'];
  switch (kind) {
    case 'Source': {
      const out = checkFields(body, SOURCE_FIELD_RULES, path, c.issues, xferType, true);
      checkHostRef(out, path, c);
      keepStoredPassword(out, path, c);
      return out;
    }
    case 'Destination': {
      const out = checkFields(body, DESTINATION_FIELD_RULES, path, c.issues, xferType, false);
      checkHostRef(out, path, c);
      keepStoredPassword(out, path, c);
      return out;
    }
    case 'Process': {
      const { Parameters, ...rest } = body;
      const out = checkFields(rest, PROCESS_FIELD_RULES, path, c.issues, xferType, false);
      const sid = out.ScriptID;
      if (sid === undefined) c.issues.fail(`${path}.ScriptID`, '', 'ScriptID is required');
      else if (typeof sid === 'string') {
        const st = c.task.state;
        if (!st.customScripts.some((s) => s.ID === sid) && !st.standardScripts.some((s) => s.ID === sid)) {
          c.issues.fail(`${path}.ScriptID`, sid, 'no custom or standard script has this ID');
        }
      }
      const previous = typeof out.ID === 'string' ? c.oldStepParams.get(out.ID) : undefined;
      out.Parameters = normalizeParameters(Parameters, `${path}.Parameters`, c, previous);
      return out;
    }
    case 'RunTask': {
      const tid = body.TaskID;
      if (tid !== undefined && (typeof tid !== 'string' || !c.task.state.tasks.some((t) => t.ID === tid))) {
        c.issues.fail(`${path}.TaskID`, tid, 'no task has this ID');
      }
      return { ...body };
    }
    case 'For': {
      const out: JsonObject = { ...body };
      if (body.steps !== undefined) out.steps = normalizeStepList(body.steps, `${path}.steps`, c);
      return out;
    }
    case 'If': {
      const out: JsonObject = { ...body };
      if (Array.isArray(body.When)) {
        out.When = body.When.map((w, i) => {
          if (!isJsonObject(w) || w.steps === undefined) return w;
          return { ...w, steps: normalizeStepList(w.steps, `${path}.When[${i}].steps`, c) };
        });
      }
      if (isJsonObject(body.Otherwise) && body.Otherwise.steps !== undefined) {
        out.Otherwise = { ...body.Otherwise, steps: normalizeStepList(body.Otherwise.steps, `${path}.Otherwise.steps`, c) };
      }
      return out;
    }
    case 'Email':
    case 'UpdOrig':
      return { ...body };
    default: {
      const never: never = kind;
      throw new Error(`unknown step kind ${String(never)}`);
    }
  }
}

function normalizeSchedules(value: Json | undefined, c: Ctx): JsonObject {
  if (value === undefined) return { Schedule: [] };
  if (!isJsonObject(value)) {
    c.issues.fail('Schedules', value, 'must be an object {Schedule: [...]}');
    return { Schedule: [] };
  }
  for (const k of Object.keys(value)) if (k !== 'Schedule') c.issues.fail(`Schedules.${k}`, value[k], 'is not a Schedules field (Schedule)');
  const list = value.Schedule ?? [];
  if (!Array.isArray(list)) {
    c.issues.fail('Schedules.Schedule', list, 'must be an array');
    return { Schedule: [] };
  }
  return { Schedule: list.map((s, i) => normalizeSchedule(s, `Schedules.Schedule[${i}]`, c)) };
}

function normalizeSchedule(s: Json, path: string, c: Ctx): JsonObject {
  if (!isJsonObject(s)) {
    c.issues.fail(path, s, 'a schedule must be an object');
    return {};
  }
  const i = c.issues;
  for (const k of SCHEDULE_FLAGS) {
    if (s[k] !== undefined && s[k] !== 0 && s[k] !== 1) i.fail(`${path}.${k}`, s[k], 'must be 0 or 1');
  }
  if (s.Multi !== undefined && s.Multi !== 0 && s.Multi !== 1 && s.Multi !== 2) i.fail(`${path}.Multi`, s.Multi, 'must be 0, 1 or 2');
  if (s.ID !== undefined && typeof s.ID !== 'string') i.fail(`${path}.ID`, s.ID, 'must be a string');
  const f = s.Frequency;
  if (f === undefined) i.fail(`${path}.Frequency`, '', 'Frequency is required');
  else if (!isJsonObject(f)) i.fail(`${path}.Frequency`, f, 'must be an object {Interval: [...]}');
  else if (f.Interval !== undefined) {
    if (!Array.isArray(f.Interval)) i.fail(`${path}.Frequency.Interval`, f.Interval, 'must be an array of {StartTime, EndTime}');
    else {
      f.Interval.forEach((iv, n) => {
        const p = `${path}.Frequency.Interval[${n}]`;
        if (!isJsonObject(iv)) return i.fail(p, iv, 'must be an object {StartTime, EndTime}');
        if (iv.StartTime === undefined) i.fail(`${p}.StartTime`, '', 'StartTime is required');
        for (const k of ['StartTime', 'EndTime']) {
          const t = iv[k];
          if (t !== undefined && (typeof t !== 'string' || !HH_MM.test(t))) i.fail(`${p}.${k}`, t, 'must be a time HH:mm');
        }
      });
    }
  }
  const d = s.Days;
  if (d !== undefined) {
    if (!isJsonObject(d)) i.fail(`${path}.Days`, d, 'must be an object {DayOfWeek: [...]}');
    else if (d.DayOfWeek !== undefined) {
      if (!Array.isArray(d.DayOfWeek)) i.fail(`${path}.Days.DayOfWeek`, d.DayOfWeek, 'must be an array of day names');
      else
        d.DayOfWeek.forEach((day, n) => {
          if (typeof day !== 'string' || !DAYS.includes(day)) i.fail(`${path}.Days.DayOfWeek[${n}]`, day, `must be a day name: ${DAYS.join(', ')}`);
        });
    }
  }
  const refs = s.DateListRef;
  if (refs !== undefined) {
    if (!Array.isArray(refs)) i.fail(`${path}.DateListRef`, refs, 'must be an array of {DateListID}');
    else
      refs.forEach((r, n) => {
        const p = `${path}.DateListRef[${n}].DateListID`;
        if (!isJsonObject(r) || typeof r.DateListID !== 'string') return i.fail(p, isJsonObject(r) ? (r.DateListID ?? '') : r, 'DateListID is required');
        const id = r.DateListID;
        if (!c.task.state.dateLists.some((dl) => dl.ID === id)) i.fail(p, id, 'no date list has this ID');
      });
  }
  return { ...s };
}

function flag(body: JsonObject, key: string, fallback: 0 | 1, issues: Issues): 0 | 1 {
  const v = body[key];
  if (v === undefined) return fallback;
  if (v !== 0 && v !== 1) {
    issues.fail(key, v, 'must be 0 or 1');
    return fallback;
  }
  return v;
}

function walkSteps(steps: Json | undefined, visit: (body: JsonObject, kind: string) => void): void {
  if (!Array.isArray(steps)) return;
  for (const step of steps) {
    if (!isJsonObject(step)) continue;
    for (const [kind, body] of Object.entries(step)) {
      if (!isJsonObject(body)) continue;
      visit(body, kind);
      walkSteps(body.steps, visit);
      if (Array.isArray(body.When)) for (const w of body.When) if (isJsonObject(w)) walkSteps(w.steps, visit);
      if (isJsonObject(body.Otherwise)) walkSteps(body.Otherwise.steps, visit);
    }
  }
}

/** Visit every step body of a task, nested For/If steps included. */
export function forEachStep(task: JsonObject, visit: (body: JsonObject, kind: string) => void): void {
  walkSteps(task.steps, visit);
}

/** Every element the server numbers: schedules (and their date-list references when `refs`), step bodies, next actions. */
function numberedElements(task: JsonObject, refs: boolean): JsonObject[] {
  const out: JsonObject[] = [];
  const schedules = isJsonObject(task.Schedules) ? task.Schedules.Schedule : undefined;
  if (Array.isArray(schedules)) {
    for (const s of schedules) {
      if (!isJsonObject(s)) continue;
      out.push(s);
      if (refs && Array.isArray(s.DateListRef)) for (const r of s.DateListRef) if (isJsonObject(r)) out.push(r);
    }
  }
  forEachStep(task, (body) => out.push(body));
  const next = isJsonObject(task.NextActions) ? task.NextActions.NextAction : undefined;
  if (Array.isArray(next)) for (const n of next) if (isJsonObject(n)) out.push(n);
  return out;
}

/** Give every element without a (unique, numeric) ID the next entity number, and set NextEID. */
function numberElements(task: JsonObject, floor: number, refs: boolean): void {
  const used = new Set<string>();
  const missing: JsonObject[] = [];
  let max = 0;
  for (const el of numberedElements(task, refs)) {
    const id = el.ID;
    if (typeof id === 'string' && /^[0-9]+$/.test(id) && !used.has(id)) {
      used.add(id);
      max = Math.max(max, Number(id));
    } else missing.push(el);
  }
  let next = Math.max(max + 1, floor, 1);
  for (const el of missing) {
    const rest = { ...el };
    delete rest.ID;
    for (const k of Object.keys(el)) delete el[k];
    el.ID = String(next++);
    Object.assign(el, rest);
  }
  task.NextEID = next;
}

export function orderTaskKeys(task: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const k of TASK_KEY_ORDER) if (task[k] !== undefined) out[k] = task[k]!;
  for (const [k, v] of Object.entries(task)) if (!(k in out)) out[k] = v;
  return out;
}

/**
 * Validate a Task body and turn it into the stored form: defaults for blank fields, Source/
 * Destination `Type` from the host, parameters in stored form, elements numbered. The caller
 * sets `ID`, checks name uniqueness (409) and rights (403).
 */
export function normalizeTask(input: unknown, ctx: TaskContext): TaskCheck {
  const issues = new Issues();
  if (!isJsonObject(input)) {
    issues.fail('', input as Json, 'the body must be a Task object');
    return { ok: false, errors: issues.list };
  }
  const body = dropNulls(input) as JsonObject;
  const oldStepParams = new Map<string, JsonObject>();
  const oldStepPasswords = new Map<string, string>();
  if (ctx.existing) {
    forEachStep(ctx.existing, (b, kind) => {
      if (kind === 'Process' && typeof b.ID === 'string' && isJsonObject(b.Parameters)) oldStepParams.set(b.ID, b.Parameters);
      if ((kind === 'Source' || kind === 'Destination') && typeof b.ID === 'string' && typeof b.Password === 'string') oldStepPasswords.set(b.ID, b.Password);
    });
  }
  const c: Ctx = { task: ctx, issues, oldStepParams, oldStepPasswords };
  for (const [k, v] of Object.entries(body)) {
    if (!TASK_FIELDS.includes(k) && !TASK_READ_ONLY_FIELDS.includes(k)) issues.fail(k, v, 'is not a Task field');
  }
  const task: JsonObject = {};
  if (typeof body.Name !== 'string' || body.Name.trim() === '') issues.fail('Name', body.Name ?? '', 'Name is required');
  else task.Name = body.Name;

  if (ctx.mode === 'update') task.Group = ctx.existing?.Group ?? [];
  else {
    const g = body.Group ?? [];
    const groups: string[] = [];
    if (!Array.isArray(g)) issues.fail('Group', g, 'must be an array of resource group names');
    else
      g.forEach((name, i) => {
        const found = typeof name === 'string' ? ctx.state.resourceGroups.find((r) => String(r.Name).toLowerCase() === name.toLowerCase()) : undefined;
        if (!found) issues.fail(`Group[${i}]`, name, 'no resource group has this name');
        else groups.push(String(found.Name));
      });
    task.Group = groups;
  }
  task.Active = flag(body, 'Active', 1, issues);
  task.AR = flag(body, 'AR', 0, issues);
  if (body.CAS !== undefined) {
    if (!['', 'EMPTY', 'N', 'A'].includes(body.CAS as string)) issues.fail('CAS', body.CAS, 'must be one of "", "N", "A"');
    else task.CAS = body.CAS;
  }
  const cache = body.CacheNames ?? 'random';
  if (cache !== 'random' && cache !== 'orig') issues.fail('CacheNames', cache, 'must be random or orig');
  task.CacheNames = cache;
  const tt = body.TT ?? '';
  if (typeof tt !== 'string') issues.fail('TT', tt, 'must be a string');
  else if (ctx.mode !== 'seed' && (tt === 'COS' || ctx.existing?.TT === 'COS')) {
    issues.fail('TT', ctx.existing?.TT === 'COS' ? 'COS' : tt, 'advanced (TT=COS) tasks cannot be added or updated through the API; only traditional tasks');
  }
  task.TT = tt;
  task.UseDefStateCaching = flag(body, 'UseDefStateCaching', 0, issues);
  if (body.NextEID !== undefined && (typeof body.NextEID !== 'number' || !Number.isInteger(body.NextEID)))
    issues.fail('NextEID', body.NextEID, 'must be an integer');

  const info = body.Info ?? {};
  if (!isJsonObject(info)) issues.fail('Info', info, 'must be an object {Description, Notes}');
  else {
    for (const [k, v] of Object.entries(info)) {
      if (k !== 'Description' && k !== 'Notes') issues.fail(`Info.${k}`, v, 'is not an Info field (Description, Notes)');
      else if (typeof v !== 'string') issues.fail(`Info.${k}`, v, 'must be a string');
    }
    task.Info = { Description: info.Description ?? '', Notes: info.Notes ?? '' };
  }
  task.Schedules = normalizeSchedules(body.Schedules, c);
  task.Parameters = normalizeParameters(body.Parameters, 'Parameters', c, isJsonObject(ctx.existing?.Parameters) ? ctx.existing.Parameters : undefined);
  const next = body.NextActions ?? {};
  if (!isJsonObject(next)) issues.fail('NextActions', next, 'must be an object');
  else task.NextActions = next;
  task.steps = normalizeStepList(body.steps, 'steps', c);
  task.Renamed = ctx.mode === 'update' ? ctx.existing?.Renamed === true || ctx.existing?.Name !== task.Name : body.Renamed === true && ctx.mode === 'seed';

  if (issues.list.length > 0) return { ok: false, errors: issues.list };
  const floor = Math.max(typeof ctx.existing?.NextEID === 'number' ? ctx.existing.NextEID : 1, typeof body.NextEID === 'number' ? body.NextEID : 1);
  // A reference numbered like a step exists only where the server answers that number (A-11 `both`).
  numberElements(task, floor, ctx.variants['automation.dateListRef'] === 'both');
  return { ok: true, task: orderTaskKeys(task) };
}
