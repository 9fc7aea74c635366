import type { AnySchemaObject } from 'ajv/dist/2020.js';
import type { LiveFolder } from '../live/model.js';
import { getKindSchema } from '../manifest/schemas.js';
import { API_VERSION } from '../manifest/types.js';
import { formatAddress } from '../plan/model.js';
import { PASSWORD_FIELD } from '../resources/common.js';
import { isRecord } from '../is-record.js';
import { viewEntries } from '../kinds/folder-permissions/plan.js';
import { groupManifestSpec } from '../kinds/group/to-manifest.js';
import type { LiveGroupMembers } from '../kinds/group/to-manifest.js';
import { grantedPermissions } from '../kinds/resource-group-acl/plan.js';
import { sameHostType, stepPasswordState } from '../kinds/task/plan.js';
import { userSpecOf } from '../kinds/user/to-manifest.js';
import type { TransferUser, TransferUserDetails } from '../services/transfer/types.js';
import type { ResourceGroupAcl, Task } from '../services/automation/types.js';
import type { ImportedManifest, ImportKind, ImportSource, SecretPlaceholder } from './model.js';
import { isDroppedDefault } from './dropped-defaults.js';
import { shapeToSchema } from './shape-to-schema.js';

/**
 * Live objects → minimal manifests (pure). What "minimal" means, per kind:
 *
 * - Task: ids become names (`HostID` → `Host`, `ScriptID` → `Script`, date-list ids → names);
 *   server-numbered and read-only fields (`ID`, step and schedule `ID`s, `NextEID`, `Renamed`,
 *   `Scheduled`, `Watched`, `x*`) are dropped; fields equal to the server's default for a blank
 *   field (the register `DROPPED_DEFAULTS`: `AR` 0, `CacheNames` random, a schedule's `Multi` 0,
 *   a step's `NewFilesOnly` 0…; empty `Info` texts, empty `Schedules`, `Parameters`,
 *   `NextActions`, `steps`) are dropped, and so is a step's `Type` when it is its host's; secrets become `${env:NAME}` placeholders. `Active` is always
 *   written, default or not: a task someone pauses on the server is the drift people most need
 *   to hear about, and only fields a manifest sets are compared.
 * - ResourceGroupAcl: the pair and the granted permissions; the label is made from the pair.
 * - FolderPermissions: `mode: exact` and every user and group entry (non-editable ones too: they
 *   document the folder, and plan never touches them).
 */

/** Names of catalog objects by id. */
export interface ImportCatalog {
  host(id: string): { readonly name: string; readonly type: string } | undefined;
  script(id: string): string | undefined;
  dateList(id: string): string | undefined;
}

export function createImportCatalog(source: Pick<ImportSource, 'hosts' | 'scripts' | 'dateLists'>): ImportCatalog {
  const hosts = new Map(source.hosts.map((h) => [String(h.ID), { name: h.Name, type: h.type }]));
  const names = (list: ImportSource['scripts']) =>
    new Map(list.filter((x) => typeof x.Name === 'string' && x.Name !== '').map((x) => [String(x.ID), x.Name as string]));
  const scripts = names(source.scripts);
  const dateLists = names(source.dateLists);
  return { host: (id) => hosts.get(id), script: (id) => scripts.get(id), dateList: (id) => dateLists.get(id) };
}

/**
 * Hands out `${env:…}` placeholder names: upper-case, from the object and field
 * (`PAYROLL_TO_BANK_APIKEY`), unique across one import, and remembers them for the closing list.
 */
export interface SecretNamer {
  /**
   * What the manifest holds in a secret's place: a `${env:NAME}` placeholder for an import, a
   * `$sensitive` marker for a plan showing what a delete removes (`createSecretRedactor`).
   */
  placeholder(address: string, field: string, parts: readonly string[]): unknown;
  list(): SecretPlaceholder[];
}

export function createSecretNamer(): SecretNamer {
  const used = new Set<string>();
  const out: SecretPlaceholder[] = [];
  return {
    placeholder(address, field, parts) {
      let base = parts
        .join('_')
        .normalize('NFKD')
        .replace(/[\u0300-\u036f]/g, '')
        .toUpperCase()
        .replace(/[^A-Z0-9]+/g, '_')
        .replace(/^_+|_+$/g, '');
      if (base === '' || /^[0-9]/.test(base)) base = `MFTOPS_${base}`.replace(/_+$/, '');
      let variable = base;
      for (let n = 2; used.has(variable); n++) variable = `${base}_${n}`;
      used.add(variable);
      out.push({ variable, address, field });
      return `\${env:${variable}}`;
    },
    list: () => [...out],
  };
}

/** Secrets as `mark()` makes them (a `$sensitive` marker): nothing to set, so nothing listed. */
export function createSecretRedactor(mark: () => unknown): SecretNamer {
  return { placeholder: () => mark(), list: () => [] };
}

const SUPPRESSED = '(suppressed)';
/** Step kinds a manifest can hold; a task with any other (For, If, …) is imported without steps. */
const MANIFEST_STEP_KINDS = new Set(['Source', 'Process', 'Destination']);

export function taskToManifest(task: Task, catalog: ImportCatalog, secrets: SecretNamer): ImportedManifest {
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
  return finish('Task', name, address, name, spec, notes);
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

/** `Finance` + `Finance Operators` → `finance-finance-operators`: a label only, the pair is the identity. */
export function aclLabel(acl: Pick<ResourceGroupAcl, 'ResourceGroupName' | 'UserGroupName'>): string {
  const label = `${acl.ResourceGroupName}-${acl.UserGroupName}`
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return label === '' ? 'acl' : label;
}

export function aclToManifest(acl: ResourceGroupAcl, label: string = aclLabel(acl)): ImportedManifest {
  const spec = { resourceGroup: acl.ResourceGroupName, userGroup: acl.UserGroupName, permissions: grantedPermissions(acl) };
  return finish('ResourceGroupAcl', `${acl.ResourceGroupName}/${acl.UserGroupName}`, formatAddress('ResourceGroupAcl', label), label, spec, []);
}

export function folderToManifest(folder: LiveFolder): ImportedManifest {
  const path = folder.folder.path;
  const notes: string[] = [];
  const others = folder.acl.filter((e) => e.type !== 'User' && e.type !== 'Group');
  if (others.length > 0)
    notes.push(
      `${others.length} entr${others.length === 1 ? 'y' : 'ies'} of type ${[...new Set(others.map((e) => e.type))].join(', ')} cannot be managed and ${others.length === 1 ? 'is' : 'are'} left out (plan never touches them)`,
    );
  const unnamed = folder.acl.filter((e) => (e.type === 'User' || e.type === 'Group') && e.name === undefined);
  if (unnamed.length > 0) {
    const who = unnamed.map((e) => `${e.type.toLowerCase()} id ${e.id}${e.serverName !== undefined ? ` ("${e.serverName}")` : ''}`).join(', ');
    notes.push(
      `${who}: not in the user and group lists this account can read, so no username or group name is known; left out, and the mode is additive so that plan leaves ${unnamed.length === 1 ? 'it' : 'them'} alone`,
    );
  }
  const entries = viewEntries(folder.acl.filter((e) => !unnamed.includes(e))).map((e) => ({
    [e.type === 'User' ? 'user' : 'group']: e.name,
    permissions: [...e.permissions.permissions],
    ...(e.permissions.sharePermissions.length > 0 ? { sharePermissions: [...e.permissions.sharePermissions] } : {}),
  }));
  return finish('FolderPermissions', path, formatAddress('FolderPermissions', path), path, { mode: unnamed.length > 0 ? 'additive' : 'exact', entries }, notes);
}

/** A user by its username: the fields that differ from a new account's (src/kinds/user/to-manifest.ts); never a password. */
export function userToManifest(user: TransferUser, details?: TransferUserDetails): ImportedManifest {
  return finish('User', user.username, formatAddress('User', user.username), user.username, userSpecOf(user, details), []);
}

/** A live transfer group as its minimal manifest (`groupManifestSpec`). */
export function groupToManifest(live: LiveGroupMembers): ImportedManifest {
  const { spec, notes } = groupManifestSpec(live);
  return finish('Group', live.group.name, formatAddress('Group', live.group.name), live.group.name, spec, notes);
}

function finish(kind: ImportKind, name: string, address: string, metadataName: string, spec: Record<string, unknown>, notes: string[]): ImportedManifest {
  const root = getKindSchema(kind);
  const specSchema = (root.properties as Record<string, AnySchemaObject>).spec!;
  const shaped = shapeToSchema(spec, specSchema, root, '', notes);
  const document = { apiVersion: API_VERSION, kind, metadata: { name: metadataName }, spec: shaped };
  return { kind, name, address, document, notes };
}
