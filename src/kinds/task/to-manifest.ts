import { formatAddress } from '../address.js';
import { PASSWORD_FIELD } from '../../resources/common.js';
import { isRecord } from '../../is-record.js';
import type { Host, NamedObject, Task } from '../../services/automation/types.js';
import type { ManifestDraft, SecretNamer } from '../kind-import.js';
import { isDroppedDefault } from './dropped-defaults.js';
import { sameHostType, stepPasswordState } from './plan.js';

/**
 * A live task → its minimal manifest (pure). What "minimal" means: ids become names (`HostID` → `Host`, `ScriptID` → `Script`, date-list ids → names);
 *   server-numbered and read-only fields (`ID`, step and schedule `ID`s, `NextEID`, `Renamed`,
 *   `Scheduled`, `Watched`, `x*`) are dropped; fields equal to the server's default for a blank
 *   field (the register `DROPPED_DEFAULTS`: `AR` 0, `CacheNames` random, a schedule's `Multi` 0,
 *   a step's `NewFilesOnly` 0…; empty `Info` texts, empty `Schedules`, `Parameters`,
 *   `NextActions`, `steps`) are dropped, and so is a step's `Type` when it is its host's; secrets become `${env:NAME}` placeholders. `Active` is always
 *   written, default or not: a task someone pauses on the server is the drift people most need
 *   to hear about, and only fields a manifest sets are compared.
 */

/** Names of catalog objects by id: what turns the ids in a task into names. */
export interface ImportCatalog {
  host(id: string): { readonly name: string; readonly type: string } | undefined;
  script(id: string): string | undefined;
  dateList(id: string): string | undefined;
}

export function createImportCatalog(source: Pick<TaskImportPart, 'hosts' | 'scripts' | 'dateLists'>): ImportCatalog {
  const hosts = new Map(source.hosts.map((h) => [String(h.ID), { name: h.Name, type: h.type }]));
  const names = (list: TaskImportPart['scripts']) =>
    new Map(list.filter((x) => typeof x.Name === 'string' && x.Name !== '').map((x) => [String(x.ID), x.Name as string]));
  const scripts = names(source.scripts);
  const dateLists = names(source.dateLists);
  return { host: (id) => hosts.get(id), script: (id) => scripts.get(id), dateList: (id) => dateLists.get(id) };
}

/** The live objects import reads for tasks: the tasks, and the catalogs that turn their ids into names. */
export interface TaskImportPart {
  readonly tasks: readonly Task[];
  /** Hosts, scripts and date lists turn the ids in tasks into names. */
  readonly hosts: readonly Pick<Host, 'ID' | 'Name' | 'type'>[];
  /** Custom and standard scripts. */
  readonly scripts: readonly NamedObject[];
  readonly dateLists: readonly NamedObject[];
}

const SUPPRESSED = '(suppressed)';
/** Step kinds a manifest can hold; a task with any other (For, If, …) is imported without steps. */
const MANIFEST_STEP_KINDS = new Set(['Source', 'Process', 'Destination']);

export function taskManifestOf(task: Task, catalog: ImportCatalog, secrets: SecretNamer): ManifestDraft {
  const name = String(task.Name ?? '');
  const address = formatAddress('Task', name);
  const notes: string[] = [];
  const spec: Record<string, unknown> = {};
  const t = task as Record<string, unknown>;

  spec.Active = t.Active ?? 1;
  if (!isDroppedDefault('task', 'AR', t.AR)) spec.AR = t.AR;
  if (!isDroppedDefault('task', 'CAS', t.CAS)) spec.CAS = t.CAS;
  if (!isDroppedDefault('task', 'CacheNames', t.CacheNames)) spec.CacheNames = t.CacheNames;
  if (Array.isArray(t.Group) && t.Group.length > 0) spec.Group = t.Group.map(String);
  if (isRecord(t.Info)) {
    const info: Record<string, unknown> = {};
    for (const key of ['Description', 'Notes']) if (typeof t.Info[key] === 'string' && t.Info[key] !== '') info[key] = t.Info[key];
    if (Object.keys(info).length > 0) spec.Info = info;
  }
  const next = t.NextActions;
  if (isRecord(next)) {
    const list = next.NextAction;
    if (Array.isArray(list) && list.length > 0) spec.NextActions = { NextAction: list.map(withoutIds) };
    else if (Object.keys(next).some((k) => k !== 'NextAction')) notes.push('NextActions: not in the NextAction form a manifest takes; left out');
  }
  const params = parameters(t.Parameters, (param) => secrets.placeholder(address, `Parameters.${param}`, [name, param]));
  if (Object.keys(params).length > 0) spec.Parameters = params;
  const schedules = isRecord(t.Schedules) && Array.isArray(t.Schedules.Schedule) ? t.Schedules.Schedule : [];
  if (schedules.length > 0) spec.Schedules = { Schedule: schedules.map((s, i) => schedule(s, i, catalog, notes)) };

  const steps = Array.isArray(t.steps) ? t.steps : [];
  const kinds = steps.map((s) => (isRecord(s) ? Object.keys(s)[0] : undefined));
  const other = [...new Set(kinds.filter((k) => k === undefined || !MANIFEST_STEP_KINDS.has(k)))];
  if (other.length > 0)
    notes.push(
      `steps: ${other.map((k) => k ?? '(empty)').join(', ')} steps cannot be written in a manifest yet; the steps are left out (plan then leaves them as they are)`,
    );
  else if (steps.length > 0) spec.steps = steps.map((s, i) => step(s as Record<string, unknown>, i, { name, address, catalog, secrets, notes }));

  if (typeof t.TT === 'string' && !isDroppedDefault('task', 'TT', t.TT)) {
    if (t.TT === 'COS') spec.TT = 'COS';
    else notes.push(`TT: "${t.TT}" cannot be written in a manifest; left out`);
  }
  if (!isDroppedDefault('task', 'UseDefStateCaching', t.UseDefStateCaching)) spec.UseDefStateCaching = t.UseDefStateCaching;
  return { kind: 'Task', name, address, metadataName: name, spec, notes };
}

/** Parameters by name: a secret (suppressed) one as a placeholder, the others as their value text. */
function parameters(params: unknown, placeholder: (name: string) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isRecord(params)) return out;
  for (const [param, p] of Object.entries(params)) {
    if (isRecord(p) && (p.DisplayValue === SUPPRESSED || p.value === SUPPRESSED)) out[param] = { value: placeholder(param), secret: true };
    else out[param] = isRecord(p) ? String(p.value ?? '') : String(p ?? '');
  }
  return out;
}

function schedule(s: unknown, index: number, catalog: ImportCatalog, notes: string[]): unknown {
  if (!isRecord(s)) return s;
  const out = withoutIds(s) as Record<string, unknown>;
  for (const key of Object.keys(out)) if (isDroppedDefault('schedule', key, out[key])) delete out[key];
  if (Array.isArray(s.DateListRef)) {
    const names: string[] = [];
    for (const ref of s.DateListRef) {
      const id = isRecord(ref) ? String(ref.DateListID ?? ref.ID ?? '') : String(ref);
      const found = catalog.dateList(id);
      if (found === undefined) notes.push(`Schedules.Schedule[${index}].DateListRef: no date list has id ${id}; left out`);
      else names.push(found);
    }
    if (names.length > 0) out.DateListRef = names;
    else delete out.DateListRef;
  }
  return out;
}

interface StepContext {
  readonly name: string;
  readonly address: string;
  readonly catalog: ImportCatalog;
  readonly secrets: SecretNamer;
  readonly notes: string[];
}

function step(s: Record<string, unknown>, index: number, c: StepContext): Record<string, unknown> {
  const kind = Object.keys(s)[0]!;
  const body = isRecord(s[kind]) ? s[kind] : {};
  const at = `steps[${index}].${kind}`;
  const out: Record<string, unknown> = {};
  const host = body.HostID !== undefined && body.HostID !== null ? c.catalog.host(String(body.HostID)) : undefined;
  for (const [key, value] of Object.entries(body)) {
    if (key === 'ID' || value === undefined || value === null) continue;
    if ((kind === 'Source' || kind === 'Destination') && isDroppedDefault('step', key, value)) continue;
    if (PASSWORD_FIELD.test(key)) {
      if (value !== '') out[key] = c.secrets.placeholder(c.address, `${at}.${key}`, [c.name, `step${index + 1}`, key]);
      continue;
    }
    switch (key) {
      case 'HostID':
        if (host) out.Host = host.name;
        else {
          out.HostID = String(value);
          c.notes.push(`${at}.HostID: no host has id ${String(value)}; kept as an id`);
        }
        break;
      case 'Type':
        // Plan fills the type in from the host; only a type that disagrees with it is worth saying.
        if (!(host && typeof value === 'string' && sameHostType(value, host.type))) out.Type = value;
        break;
      case 'ScriptID': {
        const script = c.catalog.script(String(value));
        if (script !== undefined) out.Script = script;
        else {
          out.ScriptID = String(value);
          c.notes.push(`${at}.ScriptID: no script has id ${String(value)}; kept as an id`);
        }
        break;
      }
      case 'Parameters': {
        const params = parameters(value, (param) => c.secrets.placeholder(c.address, `${at}.Parameters.${param}`, [c.name, `step${index + 1}`, param]));
        if (Object.keys(params).length > 0) out.Parameters = params;
        break;
      }
      default:
        out[key] = withoutIds(value);
    }
  }
  if (stepPasswordState(body) === 'likely') {
    out.Password = c.secrets.placeholder(c.address, `${at}.Password`, [c.name, `step${index + 1}`, 'Password']);
    c.notes.push(
      `${at}.Password: the server shows no step passwords, and this step signs in as ${String(body.Username)}; a placeholder is written so that a replace or re-create sends it`,
    );
  }
  return { [kind]: out };
}

/** Server-numbered `ID`s dropped at any depth. */
function withoutIds(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(withoutIds);
  if (!isRecord(x)) return x;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(x)) if (k !== 'ID' && v !== undefined && v !== null) out[k] = withoutIds(v);
  return out;
}
