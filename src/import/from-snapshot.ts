import type { LiveFolder } from '../live/model.js';
import { PASSWORD_FIELD } from '../resources/common.js';
import { isRecord } from '../is-record.js';
import { readAcl, readTask } from '../services/automation/normalize.js';
import type { AutomationWireForms } from '../services/automation/normalize.js';
import type { Host, NamedObject } from '../services/automation/types.js';
import type { FolderAclEntry } from '../services/transfer/types.js';
import type { XmlElement } from '../snapshot/config-xml.js';
import type { SavedFolder } from '../snapshot/model.js';
import type { ImportSource } from './model.js';
import { emptyImportSource } from './select.js';

/**
 * A saved automation export (`GET /config`, the product's XML dialect: items as elements,
 * settings as attributes, `"1"`/`"0"` booleans, steps as their own elements in order) decoded
 * into the shapes the REST API answers, so that import makes the same manifests from a snapshot
 * as from a server (pure; `parseConfigXml` does the parsing).
 *
 * The export holds secrets in clear: every password attribute and every parameter flagged
 * `Secret` comes out as `(suppressed)`, exactly as the REST API shows them, so no secret value
 * gets past this function.
 *
 * Tasks and ACLs then go through the automation client's normaliser, exactly as a REST answer
 * does (`"1"` becomes 1 where the reference says 0/1, day names in full…). What the dialect cannot say in XML it says in two attributes that are honoured here:
 * `_types` (`Key:strings`, `Key:objects`, `Key:number`…: how to read a member back) and `_extra`
 * (a JSON object of members XML cannot carry).
 */
export function decodeConfigExport(root: XmlElement, origin: string, folders: readonly SavedFolder[] = []): ImportSource {
  const section = (name: string): readonly XmlElement[] => root.children.find((c) => c.name === name)?.children ?? [];
  const seen: AutomationWireForms = {};
  const hosts = section('Hosts').map((el) => {
    const h = decodeElement(el);
    return { ID: String(h.ID ?? ''), Name: String(h.Name ?? ''), type: el.name } satisfies Pick<Host, 'ID' | 'Name' | 'type'>;
  });
  const scripts = [...section('CustomScripts'), ...section('StandardScripts')].map((el) => decodeElement(el) as NamedObject);
  const dateLists = section('DateLists').map((el) => decodeElement(el) as NamedObject);
  const tasks = section('Tasks')
    .filter((el) => el.name === 'Task')
    .map((el) => readTask(suppressSecrets(decodeElement(el)) as Record<string, unknown>, seen));
  const acls = section('ACLs')
    .filter((el) => el.name === 'ACL')
    .map((el) => decodeElement(el))
    .filter((a) => typeof a.ResourceGroupName === 'string' && typeof a.UserGroupName === 'string')
    .map((a) => readAcl(a, seen));
  return { ...decodeSavedFolders(origin, folders), tasks, hosts, scripts, dateLists, acls };
}

/**
 * A snapshot without the automation export (taken in a transfer-only environment): its saved
 * folders, and no automation object at all.
 */
export function decodeSavedFolders(origin: string, folders: readonly SavedFolder[]): ImportSource {
  return { ...emptyImportSource(origin), folders: folders.filter((f) => f.id !== null).map(savedFolder) };
}

/** Members whose single child element is still a list (the dialect repeats list items). */
const STRING_LISTS = new Set(['Group', 'DayOfWeek', 'MemberOf']);
const OBJECT_LISTS = new Set(['Schedule', 'Interval', 'DateListRef', 'When', 'NextAction', 'comp', 'Parameter', 'Entries']);
/** Step elements: collected, in order, into the parent's `steps`. */
const STEP_KINDS = new Set(['Source', 'Process', 'Destination', 'Email', 'For', 'If', 'RunTask', 'UpdOrig']);

type Decoded = Record<string, unknown>;

/** One element as the JSON object it stands for. */
export function decodeElement(el: XmlElement): Decoded {
  const types = readTypes(el.attrs._types);
  const out: Decoded = {};
  for (const [k, v] of Object.entries(el.attrs)) {
    if (k === '_types' || k === '_extra') continue;
    out[k] = scalar(v, types.get(k));
  }
  const groups = new Map<string, XmlElement[]>();
  const steps: Decoded[] = [];
  for (const child of el.children) {
    if (STEP_KINDS.has(child.name) && !isListMember(child.name, types)) {
      steps.push({ [child.name]: decodeElement(child) });
      continue;
    }
    const list = groups.get(child.name) ?? [];
    list.push(child);
    groups.set(child.name, list);
  }
  for (const [name, children] of groups) {
    const declared = types.get(name);
    const strings = declared === 'strings' || (declared === undefined && STRING_LISTS.has(name));
    const objects = declared === 'objects' || (declared === undefined && OBJECT_LISTS.has(name));
    if (strings) out[name] = children.map((c) => c.text);
    else if (objects || children.length > 1) out[name] = children.map(decodeElement);
    else out[name] = decodeElement(children[0]!);
  }
  // Declared empty lists have no child element at all.
  for (const [name, t] of types) if ((t === 'strings' || t === 'objects') && out[name] === undefined) out[name] = [];
  if (steps.length > 0 || types.get('steps') === 'objects') out.steps = steps;
  if (isRecord(out.Parameters) && Array.isArray(out.Parameters.Parameter)) out.Parameters = parameterMap(out.Parameters.Parameter);
  const extra = el.attrs._extra;
  if (extra !== undefined) {
    try {
      const parsed: unknown = JSON.parse(extra);
      if (isRecord(parsed)) Object.assign(out, parsed);
    } catch {
      // An unreadable _extra only loses what it held; the rest of the element still imports.
    }
  }
  return out;
}

function isListMember(name: string, types: ReadonlyMap<string, string>): boolean {
  const t = types.get(name);
  return t === 'strings' || t === 'objects' || t === 'object';
}

function readTypes(text: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (text ?? '').split(/\s+/)) {
    const i = part.lastIndexOf(':');
    if (i > 0) out.set(part.slice(0, i), part.slice(i + 1));
  }
  return out;
}

function scalar(text: string, type: string | undefined): unknown {
  switch (type) {
    case 'number':
      return Number.isFinite(Number(text)) ? Number(text) : text;
    case 'boolean':
      return text === '1' || text.toLowerCase() === 'true';
    default:
      return text;
  }
}

/** `<Parameter Name value Secret/>` items → the REST map form; a secret shows `(suppressed)`. */
function parameterMap(list: readonly unknown[]): Decoded {
  const out: Decoded = {};
  for (const p of list) {
    if (!isRecord(p) || typeof p.Name !== 'string') continue;
    const { Name, Secret, ...rest } = p;
    const secret = Secret === '1' || Secret === 1 || Secret === true || String(Secret).toLowerCase() === 'true';
    out[Name] = secret ? { value: '', DisplayValue: '(suppressed)' } : { ...rest, value: rest.value ?? '' };
  }
  return out;
}

/** Every password-like member at any depth shown as the REST API shows it: `(suppressed)`. */
function suppressSecrets(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(suppressSecrets);
  if (!isRecord(x)) return x;
  const out: Decoded = {};
  for (const [k, v] of Object.entries(x)) out[k] = PASSWORD_FIELD.test(k) && typeof v === 'string' && v !== '' ? '(suppressed)' : suppressSecrets(v);
  return out;
}

function savedFolder(f: SavedFolder): LiveFolder {
  const name = f.path.replace(/\/+$/, '').split('/').pop() ?? '';
  const acl = f.entries.map((e) => ({ ...e, permissions: e.permissions }) as FolderAclEntry);
  return { folder: { id: f.id ?? '', name, path: f.path }, acl };
}
