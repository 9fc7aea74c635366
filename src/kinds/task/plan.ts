import type { AutomationLiveState } from '../../live/model.js';
import type { Parameters, Schedule, Step, TaskSpec } from '../../manifest/types.js';
import { stepKindOf } from '../../manifest/types.js';
import type { Action, ChangeReason, DesiredTask, FieldChange, JsonObject, JsonValue, RefKind, RefNames, TaskPayload } from '../../resources/model.js';
import { describeFieldChange, describeInnerValues } from '../../manifest/value-words.js';
import type { ValueVocabulary } from '../../manifest/value-words.js';
import type { Task } from '../../services/automation/types.js';
import {
  PASSWORD_FIELD,
  diffListByPosition,
  diffSetFields,
  displayLike,
  fieldChange,
  joinPath,
  mergeOver,
  refValue,
  sameScalar,
  sensitiveChange,
  sensitiveValue,
  sha256Of,
  toJson,
  withoutPasswords,
} from '../../resources/common.js';
import { isRecord } from '../../is-record.js';

/**
 * The Task kind (automation API §2.4a, gaps.md "Tasks").
 *
 * Identity: the task `Name`, case-insensitive (the server folds case), or a `previousNames` entry
 * (a rename). Field policies:
 * - server-numbered `ID`, step and schedule `ID`s, `NextEID` and read-only `Renamed`, `x*`,
 *   `Scheduled`, `Watched` are never compared (manifests cannot set them) and are left out of
 *   the fingerprint (all but `ID`/`NextEID`, which identify what apply re-reads);
 * - `Group` is immutable: a difference forces a replace;
 * - passwords and secret parameters are write-only: never compared, a `sensitive` change when the
 *   task is written anyway;
 * - `TT: COS` (advanced task) cannot be created or updated through the API: a difference is
 *   `blocked`.
 * Live tasks arrive canonical from the client (services/automation/normalize.ts: ids as strings,
 * 0/1 as numbers, full day names, `HH:mm`, parameters as a map); what is left to compare here is
 * meaning, not form: `DayOfWeek` as a set shown in week order, `siLock` ≡ `xferLock`, `1` ≡ `true`
 * in a manifest.
 */

/**
 * Names of live objects by id, for showing ids as the names a manifest writes, and the words of
 * the task fields (flags, meanings of codes; read from the task schema by the caller).
 */
export interface TaskCatalog {
  hostName(id: string): string | undefined;
  scriptName(id: string): string | undefined;
  dateListName(id: string): string | undefined;
  readonly vocabulary: ValueVocabulary;
}

export function createTaskCatalog(a: AutomationLiveState | undefined, vocabulary: ValueVocabulary): TaskCatalog {
  return {
    hostName: (id) => a?.hosts?.byId.get(id)?.Name,
    scriptName: (id) => nameText(a?.scripts?.byId.get(id)?.Name),
    dateListName: (id) => nameText(a?.dateLists?.byId.get(id)?.Name),
    vocabulary,
  };
}

function nameText(x: unknown): string | undefined {
  return typeof x === 'string' && x !== '' ? x : undefined;
}

/** The transfer-server host type is `xferLock` in the reference and `siLock` on deployed servers. */
const XFER_TYPES = new Set(['silock', 'xferlock']);

export function sameHostType(a: string, b: string): boolean {
  return a === b || (XFER_TYPES.has(a.toLowerCase()) && XFER_TYPES.has(b.toLowerCase()));
}

/** Read-only fields the server adds to a task it answers: never sent back, never fingerprinted. */
export function isVolatileTaskField(key: string): boolean {
  return key === 'Renamed' || key === 'Scheduled' || key === 'Watched' || /^x[A-Z]/.test(key);
}

/** sha256 of the task as read, volatile fields and passwords left out. */
export function fingerprintTask(live: Task): string {
  const kept: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(live)) if (!isVolatileTaskField(k)) kept[k] = v;
  return sha256Of(withoutPasswords(kept));
}

export function taskId(live: Task): string {
  return typeof live.ID === 'number' ? String(live.ID) : (live.ID ?? '');
}

const SUPPRESSED = '(suppressed)';
const WEEK = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

// ------------------------------------------------------------------------------------- display

/**
 * A live task part (a step, a schedule) as a manifest would write it: host, script and date-list
 * ids as names (a `$ref` marker when no list names one), server `ID`s dropped, secrets as
 * `$sensitive` markers.
 */
export function displayLiveTaskPart(live: unknown, cat: TaskCatalog): JsonValue {
  if (Array.isArray(live)) return live.map((x) => displayLiveTaskPart(x, cat));
  if (!isRecord(live)) return toJson(live);
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(live)) {
    if (k === 'ID' || v === undefined) continue;
    if (PASSWORD_FIELD.test(k)) out[k] = sensitiveValue();
    else if (k === 'HostID') out.Host = hostValue(String(v), cat);
    else if (k === 'ScriptID') out.Script = scriptValue(String(v), cat);
    else if (k === 'DateListRef' && Array.isArray(v)) out.DateListRef = v.map((r) => dateListValue(dateListId(r), cat));
    else if (k === 'Parameters') out.Parameters = displayLiveParameters(v);
    else out[k] = displayLiveTaskPart(v, cat);
  }
  return out;
}

function displayLiveParameters(params: unknown): JsonValue {
  if (!isRecord(params)) return toJson(params);
  const out: Record<string, JsonValue> = {};
  for (const [name, p] of Object.entries(params))
    out[name] = isRecord(p) ? (p.DisplayValue === SUPPRESSED ? sensitiveValue() : toJson(p.value ?? '')) : toJson(p);
  return out;
}

/** A manifest task part as the plan shows it: parameters as their values, secrets as `$sensitive` markers. */
export function displayDesiredTaskPart(desired: unknown): JsonValue {
  if (Array.isArray(desired)) return desired.map(displayDesiredTaskPart);
  if (!isRecord(desired)) return toJson(desired);
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(desired)) {
    if (v === undefined) continue;
    if (PASSWORD_FIELD.test(k)) out[k] = sensitiveValue();
    else if (k === 'Parameters' && isRecord(v)) {
      const params: Record<string, JsonValue> = {};
      for (const [name, p] of Object.entries(v as Parameters)) params[name] = p.secret ? sensitiveValue() : p.value;
      out.Parameters = params;
    } else out[k] = displayDesiredTaskPart(v);
  }
  return out;
}

/** A live host, script or date list id as a manifest writes it: its name, or a `$ref` marker when no list names it. */
function hostValue(id: string, cat: TaskCatalog): JsonValue {
  return cat.hostName(id) ?? refValue('host', id);
}

function scriptValue(id: string, cat: TaskCatalog): JsonValue {
  return cat.scriptName(id) ?? refValue('script', id);
}

function dateListValue(id: string, cat: TaskCatalog): JsonValue {
  return cat.dateListName(id) ?? refValue('dateList', id);
}

/** The date list a canonical `DateListRef` item names (its `ID`, if any, is the reference's own). */
function dateListId(ref: unknown): string {
  return isRecord(ref) ? String(ref.DateListID ?? '') : String(ref);
}

// ------------------------------------------------------------------------------------------ diff

/**
 * Field changes between a desired task and the live one, in manifest order: only the fields the
 * manifest sets. With no live task (a create) every set field shows as added. Secrets appear as
 * `sensitive` changes; callers drop them when nothing else changes.
 */
export function diffTask(desired: DesiredTask, live: Task | undefined, cat: TaskCatalog): FieldChange[] {
  const out: FieldChange[] = [];
  const spec: TaskSpec = desired.manifest.spec;
  const l: Record<string, unknown> = live ?? {};
  const body = desired.body;
  const show = (x: unknown) => displayLiveTaskPart(x, cat);
  for (const [key, value] of Object.entries(spec) as [string, unknown][]) {
    if (value === undefined) continue;
    switch (key) {
      case 'Group': {
        const want = (body.Group as string[] | undefined) ?? (value as string[]);
        const have = Array.isArray(l.Group) ? l.Group.map(String) : [];
        if (!sameNameSet(want, have))
          out.push(fieldChange('Group', live && l.Group !== undefined ? have : undefined, toJson(value), { forcesReplace: live !== undefined }));
        break;
      }
      case 'Parameters':
        diffParameters('Parameters', value as Parameters, l.Parameters, out);
        break;
      case 'Schedules':
        diffSchedules((value as { Schedule: readonly Schedule[] }).Schedule, body, l.Schedules, out, cat);
        break;
      case 'steps':
        diffSteps(value as readonly Step[], body, l.steps, out, cat);
        break;
      default:
        diffSetFields(key, value, l[key], out, show);
    }
  }
  return out;
}

function sameNameSet(a: readonly string[], b: readonly string[]): boolean {
  const x = new Set(a.map((s) => s.toLowerCase()));
  const y = new Set(b.map((s) => s.toLowerCase()));
  if (x.size !== y.size) return false;
  for (const s of x) if (!y.has(s)) return false;
  return true;
}

/** Parameters by name: only those the manifest lists; secrets and suppressed live values never compared. */
function diffParameters(path: string, desired: Parameters, live: unknown, out: FieldChange[]): void {
  const l = isRecord(live) ? live : {};
  for (const [name, p] of Object.entries(desired)) {
    const at = joinPath(path, name);
    if (p.secret) {
      out.push(sensitiveChange(at));
      continue;
    }
    const lp = l[name];
    if (!isRecord(lp)) out.push(fieldChange(at, undefined, p.value));
    else if (lp.DisplayValue === SUPPRESSED) continue;
    else if (!sameScalar(p.value, lp.value)) out.push(fieldChange(at, displayLike(p.value, lp.value), p.value));
  }
}

function diffSchedules(desired: readonly Schedule[], body: JsonObject, liveSchedules: unknown, out: FieldChange[], cat: TaskCatalog): void {
  const resolved = listOf(isRecord(body.Schedules) ? body.Schedules.Schedule : undefined);
  const live = isRecord(liveSchedules) ? liveSchedules.Schedule : undefined;
  diffListByPosition(
    'Schedules.Schedule',
    desired,
    live,
    out,
    (path, d, l, i) => diffSchedule(path, d as Schedule, resolved[i], l, out, cat),
    (x) => displayLiveTaskPart(x, cat),
    displayDesiredTaskPart,
  );
}

function diffSchedule(path: string, d: Schedule, resolved: unknown, liveValue: unknown, out: FieldChange[], cat: TaskCatalog): void {
  const l = isRecord(liveValue) ? liveValue : {};
  const r = isRecord(resolved) ? resolved : {};
  for (const [key, value] of Object.entries(d) as [string, unknown][]) {
    if (value === undefined) continue;
    switch (key) {
      case 'Days': {
        const days = (value as Schedule['Days'])?.DayOfWeek;
        if (days === undefined) break;
        const liveDays = isRecord(l.Days) && Array.isArray(l.Days.DayOfWeek) ? l.Days.DayOfWeek.map(String) : undefined;
        if (!sameDays(days, liveDays ?? []))
          out.push(fieldChange(`${path}.Days.DayOfWeek`, liveDays && toJson(inWeekOrder(liveDays)), toJson(inWeekOrder(days))));
        break;
      }
      case 'DateListRef': {
        const want = listOf(r.DateListRef).map(dateListId);
        const liveRefs = Array.isArray(l.DateListRef) ? l.DateListRef : [];
        const have = liveRefs.map(dateListId);
        if (!sameNameSet(want, have)) {
          const before = liveRefs.length > 0 ? have.map((id) => dateListValue(id, cat)) : undefined;
          out.push(fieldChange(`${path}.DateListRef`, before, toJson(value)));
        }
        break;
      }
      case 'Frequency': {
        const intervals = (value as Schedule['Frequency']).Interval;
        const liveIntervals = isRecord(l.Frequency) ? l.Frequency.Interval : undefined;
        diffListByPosition(`${path}.Frequency.Interval`, intervals, liveIntervals, out, (p, di, li) => diffInterval(p, di, li, out));
        break;
      }
      default:
        diffSetFields(joinPath(path, key), value, l[key], out, (x) => displayLiveTaskPart(x, cat));
    }
  }
}

function diffInterval(path: string, desired: unknown, live: unknown, out: FieldChange[]): void {
  const d = isRecord(desired) ? desired : {};
  const l = isRecord(live) ? live : {};
  for (const key of Object.keys(d)) {
    const want = d[key];
    if (typeof want !== 'string') continue;
    const have = l[key];
    if (want !== have) out.push(fieldChange(joinPath(path, key), have === undefined ? undefined : toJson(have), want));
  }
}

function sameDays(a: readonly string[], b: readonly string[]): boolean {
  return sameNameSet(a, b);
}

/** Days Monday to Sunday (each once), then anything unrecognised as it came. */
export function inWeekOrder(days: readonly string[]): string[] {
  const known = WEEK.filter((d) => days.some((x) => x.toLowerCase() === d)).map((d) => days.find((x) => x.toLowerCase() === d)!);
  const rest = days.filter((x) => !WEEK.includes(x.toLowerCase()));
  return [...known, ...rest];
}

function diffSteps(desired: readonly Step[], body: JsonObject, liveSteps: unknown, out: FieldChange[], cat: TaskCatalog): void {
  const resolved = listOf(body.steps);
  const showLive = (x: unknown) => displayLiveTaskPart(x, cat);
  diffListByPosition(
    'steps',
    desired,
    liveSteps,
    out,
    (path, d, l, i) => {
      const step = d as Step;
      const kind = stepKindOf(step);
      const liveKind = stepKindOfLive(l);
      if (liveKind !== kind || !isRecord(l)) {
        out.push(fieldChange(path, showLive(l), displayDesiredTaskPart(step)));
        return;
      }
      const r = resolved[i];
      const resolvedBody = isRecord(r) && isRecord(r[kind]) ? r[kind] : {};
      diffStepBody(`${path}.${kind}`, (step as unknown as Record<string, Record<string, unknown>>)[kind]!, resolvedBody, l[liveKind], out, cat);
    },
    showLive,
    displayDesiredTaskPart,
  );
}

/** The kind of a live step: its (first) key. */
export function stepKindOfLive(step: unknown): string | undefined {
  return isRecord(step) ? Object.keys(step)[0] : undefined;
}

function diffStepBody(path: string, d: Record<string, unknown>, r: Record<string, unknown>, liveBody: unknown, out: FieldChange[], cat: TaskCatalog): void {
  const l = isRecord(liveBody) ? liveBody : {};
  const liveHost = l.HostID === undefined || l.HostID === null ? undefined : String(l.HostID);
  const liveScript = l.ScriptID === undefined || l.ScriptID === null ? undefined : String(l.ScriptID);
  for (const [key, value] of Object.entries(d)) {
    if (value === undefined) continue;
    const at = joinPath(path, key);
    if (PASSWORD_FIELD.test(key)) {
      out.push(sensitiveChange(at));
      continue;
    }
    switch (key) {
      case 'Host':
        if (String(r.HostID) !== liveHost) out.push(fieldChange(at, liveHost === undefined ? undefined : hostValue(liveHost, cat), toJson(value)));
        break;
      case 'HostID':
        if (String(value) !== liveHost) out.push(fieldChange(at, liveHost, toJson(value)));
        break;
      case 'Type':
        if (typeof l.Type !== 'string' || !sameHostType(String(value), l.Type))
          out.push(fieldChange(at, typeof l.Type === 'string' ? l.Type : undefined, toJson(value)));
        break;
      case 'Script':
        if (String(r.ScriptID) !== liveScript) out.push(fieldChange(at, liveScript === undefined ? undefined : scriptValue(liveScript, cat), toJson(value)));
        break;
      case 'ScriptID':
        if (String(value) !== liveScript) out.push(fieldChange(at, liveScript, toJson(value)));
        break;
      case 'Parameters':
        diffParameters(at, value as Parameters, l.Parameters, out);
        break;
      default:
        diffSetFields(at, value, l[key], out, (x) => displayLiveTaskPart(x, cat));
    }
  }
}

function listOf(x: unknown): unknown[] {
  return Array.isArray(x) ? x : [];
}

// --------------------------------------------------------------------------------------- payload

/**
 * The PUT body: the live task with the manifest's fields merged in. Read-only fields are dropped,
 * kept steps and schedules keep their server `ID`s, fields the manifest does not set keep their
 * live values. `Group` stays as it is (the server ignores it on update), and so does a `Name` that
 * differs only in case. Live passwords are left out: a plan never holds a secret value.
 */
export function updateTaskBody(live: Task, desired: DesiredTask): JsonObject {
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(withoutPasswords(live) as Record<string, unknown>)) {
    if (isVolatileTaskField(k) || v === undefined) continue;
    out[k] = toJson(v);
  }
  for (const [key, value] of Object.entries(desired.body)) {
    switch (key) {
      case 'Group':
        break;
      case 'Name':
        // Names compare without regard to case: only a rename (another name) is sent.
        if (typeof live.Name !== 'string' || live.Name.toLowerCase() !== String(value).toLowerCase()) out.Name = value;
        break;
      case 'Parameters':
        out.Parameters = mergeParameters(out.Parameters, value);
        break;
      case 'steps':
        out.steps = mergeSteps(out.steps, value);
        break;
      default:
        out[key] = mergeOver(out[key], value);
    }
  }
  return out;
}

function mergeParameters(base: unknown, desired: unknown): JsonValue {
  const out: Record<string, JsonValue> = isRecord(base) ? { ...(toJson(base) as JsonObject) } : {};
  if (isRecord(desired)) for (const [name, p] of Object.entries(desired)) out[name] = toJson(p);
  return out;
}

function mergeSteps(live: unknown, desired: unknown): JsonValue {
  const l = listOf(live);
  return listOf(desired).map((step, i) => {
    const kind = stepKindOfLive(step);
    const liveStep = l[i];
    if (kind === undefined || !isRecord(step) || !isRecord(liveStep) || stepKindOfLive(liveStep) !== kind || !isRecord(liveStep[kind])) return toJson(step);
    const liveBody = liveStep[kind] as Record<string, unknown>;
    const out: Record<string, JsonValue> = { ...(toJson(liveBody) as JsonObject) };
    for (const [k, v] of Object.entries(step[kind] as Record<string, unknown>)) {
      if (k === 'Parameters') out.Parameters = mergeParameters(liveBody.Parameters, v);
      // Criteria's keys (And, Or, comp) are alternatives: the manifest's replaces the live one.
      else if (k === 'Criteria') out.Criteria = toJson(v);
      else out[k] = mergeOver(liveBody[k], v);
    }
    return { [kind]: out };
  });
}

/**
 * Whether a step authenticates with a password of its own that the server will not show: `set`
 * when the server says so (`(suppressed)`), `likely` when it shows none but the step signs in as a
 * user of its own (`Username`, not the host's default user, no client key): servers that leave
 * step passwords out of answers (docs/server-variants.md A-15) say nothing more.
 */
export function stepPasswordState(body: Readonly<Record<string, unknown>>): 'set' | 'likely' | undefined {
  if (typeof body.Password === 'string' && body.Password !== '') return 'set';
  const ownUser = typeof body.Username === 'string' && body.Username !== '' && !sameScalar(1, body.UseDefUser);
  const key = typeof body.ClientKeyID === 'string' && body.ClientKeyID !== '';
  return body.Password === undefined && ownUser && !key ? 'likely' : undefined;
}

/**
 * The POST body of a replace (delete and re-create): the update body without server-numbered
 * ids, with the manifest's `Group`. Secrets the server does not show cannot be copied: secret
 * parameters and step passwords the manifest does not carry are left out and named in
 * `lostSecrets` (a step password the server leaves out of its answers is named when the step signs
 * in as a user of its own).
 */
export function replaceTaskBody(live: Task, desired: DesiredTask): { body: JsonObject; lostSecrets: string[] } {
  const merged = updateTaskBody(live, desired) as Record<string, JsonValue>;
  const lostSecrets: string[] = [];
  const body = stripServerIds(merged, lostSecrets, '') as Record<string, JsonValue>;
  delete body.NextEID;
  if (desired.body.Group !== undefined) body.Group = desired.body.Group;
  const sent = listOf(body.steps);
  listOf(live.steps).forEach((step, i) => {
    const kind = stepKindOfLive(step);
    const liveBody = kind !== undefined && isRecord(step) && isRecord(step[kind]) ? step[kind] : undefined;
    const sentStep = sent[i];
    const sentBody = kind !== undefined && isRecord(sentStep) && isRecord(sentStep[kind]) ? sentStep[kind] : undefined;
    if (liveBody === undefined || (sentBody !== undefined && sentBody.Password !== undefined)) return;
    if (stepPasswordState(liveBody) !== undefined) lostSecrets.push(`steps[${i}].${kind}.Password`);
  });
  return { body, lostSecrets };
}

function stripServerIds(x: JsonValue, lost: string[], path: string): JsonValue {
  if (Array.isArray(x)) return x.map((v, i) => stripServerIds(v, lost, joinPath(path, i)));
  if (!isRecord(x)) return x;
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(x as JsonObject)) {
    if (k === 'ID') continue;
    if (k === 'Parameters' && isRecord(v)) {
      const params: Record<string, JsonValue> = {};
      for (const [name, p] of Object.entries(v as JsonObject)) {
        if (isRecord(p) && p.DisplayValue === SUPPRESSED && (p.value === '' || p.value === undefined || p.value === SUPPRESSED))
          lost.push(joinPath(joinPath(path, 'Parameters'), name));
        else params[name] = p;
      }
      out.Parameters = params;
    } else out[k] = stripServerIds(v, lost, joinPath(path, k));
  }
  return out;
}

// ------------------------------------------------------------------------------------------ plan

/** What the plan says about one task (the Change without the parts every kind shares). */
export interface TaskOutcome {
  readonly action: Exclude<Action, 'delete'>;
  readonly reason?: ChangeReason;
  readonly fields: readonly FieldChange[];
  readonly payload?: TaskPayload;
}

/**
 * The action for a desired task against its live match (undefined: none). `previousName` is the
 * live name when the match was found through `previousNames`.
 */
export function planTask(desired: DesiredTask, live: Task | undefined, cat: TaskCatalog, previousName?: string): TaskOutcome {
  const outcome = planTaskAction(desired, live, cat, previousName);
  const fields = outcome.fields.map((f) => withWords(f, cat.vocabulary));
  const payload = outcome.payload === undefined ? undefined : withRefNames(outcome.payload, cat);
  return { ...outcome, fields, ...(payload !== undefined ? { payload } : {}) };
}

function planTaskAction(desired: DesiredTask, live: Task | undefined, cat: TaskCatalog, previousName?: string): TaskOutcome {
  const fields = diffTask(desired, live, cat);
  const cos = desired.manifest.spec.TT === 'COS' || (live !== undefined && live.TT === 'COS');
  if (live === undefined) {
    if (cos) return { action: 'blocked', reason: { code: 'advanced-task', operation: 'create' }, fields };
    return { action: 'create', fields, payload: { kind: 'Task', body: desired.body } };
  }
  const all = previousName !== undefined ? [fieldChange('Name', previousName, desired.manifest.name), ...fields] : fields;
  if (!all.some((f) => !f.sensitive)) return { action: 'no-op', fields: [] };
  if (cos) return { action: 'blocked', reason: { code: 'advanced-task', operation: 'update' }, fields: all };
  if (all.some((f) => f.forcesReplace)) {
    const { body, lostSecrets } = replaceTaskBody(live, desired);
    return { action: 'replace', reason: { code: 'task-group-immutable', lostSecrets }, fields: all, payload: { kind: 'Task', body } };
  }
  return { action: 'update', fields: all, payload: { kind: 'Task', body: updateTaskBody(live, desired) } };
}

function withWords(field: FieldChange, vocabulary: ValueVocabulary): FieldChange {
  if (field.sensitive === true) return field;
  const words = describeFieldChange(vocabulary, field.path, field.before, field.after);
  const before = describeInnerValues(vocabulary, field.path, field.before);
  const after = describeInnerValues(vocabulary, field.path, field.after);
  const inner = { ...(before.length > 0 ? { before } : {}), ...(after.length > 0 ? { after } : {}) };
  return { ...field, ...(words !== undefined ? { words } : {}), ...(Object.keys(inner).length > 0 ? { innerWords: inner } : {}) };
}

/** The payload with the names of the ids its body sends (`refNames`), where the live state names them. */
function withRefNames(payload: TaskPayload, cat: TaskCatalog): TaskPayload {
  const names: Record<RefKind, Record<string, string>> = { host: {}, script: {}, dateList: {} };
  const note = (kind: RefKind, id: unknown, name: (id: string) => string | undefined) => {
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const n = name(String(id));
    if (n !== undefined) names[kind][String(id)] = n;
  };
  const visit = (x: unknown): void => {
    if (Array.isArray(x)) return x.forEach(visit);
    if (!isRecord(x)) return;
    note('host', x.HostID, cat.hostName);
    note('script', x.ScriptID, cat.scriptName);
    if (Array.isArray(x.DateListRef)) for (const r of x.DateListRef) note('dateList', dateListId(r), cat.dateListName);
    for (const v of Object.values(x)) visit(v);
  };
  visit(payload.body);
  const refNames: { -readonly [K in RefKind]?: Record<string, string> } = {};
  for (const kind of ['host', 'script', 'dateList'] as const) if (Object.keys(names[kind]).length > 0) refNames[kind] = names[kind];
  return Object.keys(refNames).length === 0 ? payload : { ...payload, refNames: refNames as RefNames };
}
