import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { FieldError } from './http.js';
import type { Json, JsonObject } from './json.js';
import { isJsonObject } from './json.js';
import type { AclRecord, AutomationState, AutomationUser, HostRecord, HostType, Variants } from './state.js';
import { ACL_PERMISSION_KEYS } from './state.js';
import { hostTypesFor, isStepKind, orderTaskKeys } from './validate-task.js';
import { decodeXmlEntities } from '../xml-entities.js';

/*
 * The configuration file in the legacy XML dialect (gaps.md): items are elements, settings are
 * attributes, booleans and 0/1 fields are "1"/"0". The mapping from the JSON state is generic
 * and exact:
 *   - a scalar member is an attribute; its JSON type comes from the key tables below, and a
 *     member whose type differs from the table is listed in the element's `_types` attribute
 *     (`Key:number`, `Key:string`, `Key:boolean`);
 *   - an object member is a child element named by its key;
 *   - an array member is one child element per item (strings as text content); `_types` says
 *     `Key:strings`/`Key:objects` when the tables would guess otherwise, and always for [];
 *   - `steps` are written as their step elements (`<Source/>`, `<Process/>`…) in order;
 *   - whatever XML cannot carry exactly (keys that are not XML names, nested arrays, control
 *     characters) goes into `_extra`, a JSON object.
 */

/** Keys whose scalar values are integers (0/1 fields, counts, ports, timeouts…). */
const INT_KEYS = new Set([
  'AR',
  'Active',
  'UseDefStateCaching',
  'NextEID',
  'Multi',
  'FailIfNoSuccessInSched',
  'OnlyUntilFirstSuccess',
  'RunEvenIfNotif',
  'Secret',
  'ConnTimeoutSecs',
  'DataTimeoutSecs',
  'MxBy',
  'MxFi',
  'RescanSecs',
  'RetryCount',
  'RetryTimeoutSecs',
  'Rsm',
  'DeleteOrig',
  'FolderType',
  'SyDel',
  'BlindDL',
  'DelRename',
  'NewFilesOnly',
  'Passive',
  'RetryIfNoFiles',
  'ReuseSSL',
  'SearchSubdirs',
  'SetFileAttr',
  'SyF',
  'SyT',
  'UDMxBy',
  'UDMxFi',
  'Unzip',
  'UseLCaseComp',
  'UseWinCopyFileAPI',
  'OverwriteOrig',
  'IsDest',
  'DefRetryCount',
  'DefRetryTimeoutSecs',
  'FirewallPort',
  'MDNPollCount',
  'MDNPollTimeoutSecs',
  'FIPSOnly',
  'IgnoreCertProbs',
  'UseSigningCertForDecrypt',
  'DeleteIfNewerThanDays',
  'DeleteIfOlderThanDays',
  'PauseRerunSecs',
  'POPPort',
  'SMTPPort',
  'UseSMTPInfo',
  'ProxyPort',
  'UseHTTPAuth',
  'Port',
  'AdjDST',
  'DefMxBy',
  'DefMxFi',
  'DefRescanSecs',
  'DefWinCopyFileAPI',
  'DelOldStateDays',
  'StateCacheTime',
  'UseNotif',
  'CustomDirColDate',
  'CustomDirColFilename',
  'CustomDirSkipBottom',
  'CustomDirSkipTop',
  'DefConnTimeoutSecs',
  'DefDataTimeoutSecs',
  'UTCOffset',
  'CustomDir',
  'DefBlindDL',
  'DefBlindUL',
  'DefPassive',
  'DefSetFileAttr',
  'DotNET',
  'NATUseServerIPForData',
  'OptimizeSSHBuf',
  'RenameAfterUpload',
  'CmpL',
  ...ACL_PERMISSION_KEYS,
]);
const BOOL_KEYS = new Set(['Renamed', 'IsAdmin']);
const STRING_ARRAY_KEYS = new Set(['Group', 'DayOfWeek', 'MemberOf']);
const OBJECT_ARRAY_KEYS = new Set(['Schedule', 'Interval', 'DateListRef', 'When', 'NextAction', 'comp', 'Parameter', 'Entries']);

type ScalarType = 'string' | 'number' | 'boolean';
type ChildType = 'object' | 'strings' | 'objects';

function scalarType(key: string): ScalarType {
  if (INT_KEYS.has(key) || key.startsWith('UseDef')) return 'number';
  if (BOOL_KEYS.has(key)) return 'boolean';
  return 'string';
}
function childType(key: string): ChildType {
  if (STRING_ARRAY_KEYS.has(key)) return 'strings';
  if (OBJECT_ARRAY_KEYS.has(key)) return 'objects';
  return 'object';
}

const XML_NAME = /^[A-Za-z][A-Za-z0-9_.-]*$/;
const BAD_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
/** A text value without any of these is written as it is (the common case: one test, no copy). */
const TEXT_SPECIAL = /[&<>\r\n\t\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
const ATTR_SPECIAL = /[&<>"\r\n\t\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
const ESCAPED = /[&<>"\r\n\t]/g;
const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;', '\n': '&#10;', '\t': '&#9;', '"': '&quot;' };

/** What the export needs to know of a member's key: worked out once per distinct key (they repeat in every item). */
interface KeyInfo {
  /** An XML name that does not start with `xml`: can be an attribute or element name. */
  readonly plain: boolean;
  /** `steps` or a step kind: never an attribute or an ordinary child. */
  readonly stepish: boolean;
  readonly scalar: ScalarType;
  readonly child: ChildType;
  /** ` key="`: the start of the member as an attribute. */
  readonly attr: string;
}
const MAX_CACHED_KEYS = 10_000;
const keyInfos = new Map<string, KeyInfo>();

function keyInfo(key: string): KeyInfo {
  let info = keyInfos.get(key);
  if (info === undefined) {
    info = {
      plain: XML_NAME.test(key) && !key.toLowerCase().startsWith('xml'),
      stepish: key === 'steps' || isStepKind(key),
      scalar: scalarType(key),
      child: childType(key),
      attr: ` ${key}="`,
    };
    if (keyInfos.size < MAX_CACHED_KEYS) keyInfos.set(key, info);
  }
  return info;
}
function escapeText(s: string): string {
  return TEXT_SPECIAL.test(s) ? s.replace(ESCAPED, (ch) => (ch === '"' ? ch : ESCAPES[ch]!)) : s;
}
function escapeAttr(s: string): string {
  return ATTR_SPECIAL.test(s) ? s.replace(ESCAPED, (ch) => ESCAPES[ch]!) : s;
}

function isStepItem(v: Json): v is JsonObject {
  if (!isJsonObject(v)) return false;
  const keys = Object.keys(v);
  return keys.length === 1 && isStepKind(keys[0]!) && isJsonObject(v[keys[0]!]);
}

/** `\n` and the indentation of each level, made once. */
const NEWLINE_INDENT: string[] = Array.from({ length: 32 }, (_, i) => `\n${'  '.repeat(i)}`);
function newlineIndent(level: number): string {
  return NEWLINE_INDENT[level] ?? `\n${'  '.repeat(level)}`;
}

/**
 * One JSON object as an element, pretty-printed at `level` (2 spaces each), as one string grown
 * by appending (V8 links the pieces and copies them once, when the export is joined: joining each
 * element's children into a string and that into its parent's copied every byte once per level).
 * The line break before the element is the caller's.
 */
function encodeElement(tag: string, obj: JsonObject, level: number): string {
  let types: string[] | undefined;
  let extra: JsonObject | undefined;
  // Children in key order, then steps: written after the attributes.
  let children: { readonly key: string; readonly kind: ChildType }[] | undefined;
  let steps: JsonObject[] | undefined;
  let s = `<${tag}`;
  for (const k of Object.keys(obj)) {
    const v = obj[k]!;
    const info = keyInfo(k);
    if (!info.plain || v === null) {
      (extra ??= {})[k] = v;
      continue;
    }
    if (info.stepish) {
      if (k === 'steps' && Array.isArray(v) && v.every(isStepItem)) {
        if (v.length === 0) (types ??= []).push('steps:objects');
        steps = v as JsonObject[];
      } else (extra ??= {})[k] = v;
      continue;
    }
    if (typeof v === 'string') {
      if (!ATTR_SPECIAL.test(v)) s += info.attr + v + '"';
      else if (BAD_CHARS.test(v)) {
        (extra ??= {})[k] = v;
        continue;
      } else s += info.attr + v.replace(ESCAPED, (ch) => ESCAPES[ch]!) + '"';
      if (info.scalar !== 'string') (types ??= []).push(`${k}:string`);
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) (extra ??= {})[k] = v;
      else {
        s += info.attr + String(v) + '"';
        if (info.scalar !== 'number') (types ??= []).push(`${k}:number`);
      }
    } else if (typeof v === 'boolean') {
      s += info.attr + (v ? '1"' : '0"');
      if (info.scalar !== 'boolean') (types ??= []).push(`${k}:boolean`);
    } else if (Array.isArray(v)) {
      if (v.length === 0) (types ??= []).push(`${k}:${info.child === 'strings' ? 'strings' : 'objects'}`);
      else if (v.every(isCleanString)) {
        (children ??= []).push({ key: k, kind: 'strings' });
        if (info.child !== 'strings') (types ??= []).push(`${k}:strings`);
      } else if (v.every(isJsonObject)) {
        (children ??= []).push({ key: k, kind: 'objects' });
        if (info.child !== 'objects') (types ??= []).push(`${k}:objects`);
      } else (extra ??= {})[k] = v;
    } else {
      (children ??= []).push({ key: k, kind: 'object' });
      if (info.child !== 'object') (types ??= []).push(`${k}:object`);
    }
  }
  if (types) s += ` _types="${types.join(' ')}"`;
  if (extra && Object.keys(extra).length > 0) s += ` _extra="${escapeAttr(JSON.stringify(extra))}"`;
  if (!children && (steps === undefined || steps.length === 0)) return `${s}/>`;
  s += '>';
  const nl = newlineIndent(level + 1);
  for (const { key: k, kind } of children ?? []) {
    const v = obj[k]!;
    switch (kind) {
      case 'strings':
        for (const x of v as string[]) s += `${nl}<${k}>${escapeText(x)}</${k}>`;
        break;
      case 'objects':
        for (const x of v as JsonObject[]) s += nl + encodeElement(k, x, level + 1);
        break;
      case 'object':
        s += nl + encodeElement(k, v as JsonObject, level + 1);
        break;
      default: {
        const never: never = kind;
        throw new Error(`unknown child type ${String(never)}`);
      }
    }
  }
  for (const step of steps ?? []) {
    const [kind, body] = Object.entries(step)[0]!;
    s += nl + encodeElement(kind, body as JsonObject, level + 1);
  }
  return `${s}${newlineIndent(level)}</${tag}>`;
}

function isCleanString(x: Json): boolean {
  return typeof x === 'string' && !BAD_CHARS.test(x);
}

/**
 * `s` made flat (one copy) now, while its pieces are young: V8 links appended strings instead of
 * copying them, and 100 MB of such links kept until the final join cost the collector more than
 * the copies (a regular expression reads a flat copy, which the string keeps).
 */
function flat(s: string): string {
  FLATTEN.test(s);
  return s;
}
const FLATTEN = /^/;

/** Items of a section are at level 2, each on its own line. */
const ITEM_LEVEL = 2;
const NEWLINE_ITEM = newlineIndent(ITEM_LEVEL);

function section(out: string[], tag: string, itemTag: string, items: readonly JsonObject[]): void {
  if (items.length === 0) {
    out.push(`  <${tag}/>\n`);
    return;
  }
  out.push(`  <${tag}>`);
  for (const item of items) out.push(NEWLINE_ITEM, flat(encodeElement(itemTag, item, ITEM_LEVEL)));
  out.push(`\n  </${tag}>\n`);
}

/** The root element of the export. */
export const CONFIG_ROOT = 'Config';

/** GET /config: the whole automation configuration, passwords in clear. */
export function exportConfig(state: AutomationState, appVersion: string): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n'];
  out.push(`<${CONFIG_ROOT} Version="${escapeAttr(appVersion)}" SchedulerEnabled="${state.schedulerEnabled ? '1' : '0'}" NextID="${state.nextId}">\n`);
  section(out, 'Users', 'User', state.users);
  section(out, 'UserGroups', 'UserGroup', state.userGroups);
  section(out, 'ResourceGroups', 'ResourceGroup', state.resourceGroups);
  section(out, 'ACLs', 'ACL', state.acls);
  if (state.hosts.length === 0) out.push('  <Hosts/>\n');
  else {
    out.push('  <Hosts>');
    for (const h of state.hosts) out.push(NEWLINE_ITEM, flat(encodeElement(h.type, h.fields, ITEM_LEVEL)));
    out.push('\n  </Hosts>\n');
  }
  section(out, 'CustomScripts', 'CustomScript', state.customScripts);
  section(out, 'StandardScripts', 'StandardScript', state.standardScripts);
  section(out, 'DateLists', 'DateList', state.dateLists);
  section(out, 'GlobalParameters', 'GlobalParameter', state.globalParameters);
  section(out, 'Tasks', 'Task', state.tasks);
  out.push(`</${CONFIG_ROOT}>\n`);
  return out.join('');
}

/** The export as `automation.export` (rule 141) serves it: whole, or one of the hostile answers. */
export function hostileExport(reading: Variants['automation.export'], full: () => string): string {
  switch (reading) {
    case 'full':
      return full();
    case 'empty':
      return '<AutomationConfig></AutomationConfig>';
    case 'entityBomb': {
      const levels = ['  <!ENTITY lol "lol">'];
      for (let i = 1; i <= 9; i++) levels.push(`  <!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`);
      return withDoctype(full(), levels, '&lol9;');
    }
    case 'externalEntity':
      return withDoctype(full(), ['  <!ENTITY secret SYSTEM "file:///etc/passwd">'], '&secret;');
    default: {
      const never: never = reading;
      throw new Error(`unknown automation.export ${String(never)}`);
    }
  }
}

/** The whole export with an internal DTD of `entities` and a `<Note>` that uses `use`, first in the root. */
function withDoctype(xml: string, entities: readonly string[], use: string): string {
  const rootEnd = xml.indexOf('>', xml.indexOf(`<${CONFIG_ROOT}`)) + 1;
  const declEnd = xml.indexOf('?>') + 2;
  return `${xml.slice(0, declEnd)}\n<!DOCTYPE ${CONFIG_ROOT} [\n${entities.join('\n')}\n]>${xml.slice(declEnd, rootEnd)}\n  <Note>${use}</Note>${xml.slice(rootEnd)}`;
}

// ---------------------------------------------------------------------------------------------
// Import

/** The configuration part of the automation state, as PUT /config replaces it. */
export type AutomationConfig = Pick<
  AutomationState,
  | 'users'
  | 'userGroups'
  | 'resourceGroups'
  | 'acls'
  | 'hosts'
  | 'customScripts'
  | 'standardScripts'
  | 'dateLists'
  | 'globalParameters'
  | 'tasks'
  | 'schedulerEnabled'
  | 'nextId'
>;

class ImportError extends Error {}

type XmlNode = Record<string, unknown>;

function tagOf(node: XmlNode): string | undefined {
  for (const k of Object.keys(node)) if (k !== ':@') return k;
  return undefined;
}
function childrenOf(node: XmlNode): XmlNode[] {
  const tag = tagOf(node);
  const kids = tag === undefined ? [] : node[tag];
  return Array.isArray(kids) ? (kids as XmlNode[]) : [];
}
function elementChildren(node: XmlNode): XmlNode[] {
  return childrenOf(node).filter((c) => {
    const t = tagOf(c);
    return t !== undefined && t !== '#text' && t !== '#comment' && !t.startsWith('?');
  });
}
function attrsOf(node: XmlNode): Map<string, string> {
  const raw = (node[':@'] ?? {}) as Record<string, string>;
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(raw)) out.set(k.slice(2), decodeXmlEntities(String(v)));
  return out;
}
function textOf(node: XmlNode): string {
  return childrenOf(node)
    .filter((c) => tagOf(c) === '#text')
    .map((c) => decodeXmlEntities(String(c['#text'])))
    .join('');
}

function convertScalar(raw: string, type: string, where: string): Json {
  switch (type) {
    case 'string':
      return raw;
    case 'number':
      if (!/^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/.test(raw)) throw new ImportError(`${where}: "${raw}" is not a number`);
      return Number(raw);
    case 'boolean':
      if (raw === '1' || raw === 'true') return true;
      if (raw === '0' || raw === 'false') return false;
      throw new ImportError(`${where}: "${raw}" is not 1 or 0`);
    default:
      throw new ImportError(`${where}: unknown type ${type}`);
  }
}

function decodeElement(node: XmlNode, where: string): JsonObject {
  const attrs = attrsOf(node);
  const types = new Map<string, string>();
  for (const t of (attrs.get('_types') ?? '').split(' ').filter((x) => x !== '')) {
    const [k, v] = t.split(':');
    if (!k || !v) throw new ImportError(`${where}: bad _types entry "${t}"`);
    types.set(k, v);
  }
  const out: JsonObject = {};
  for (const [k, raw] of attrs) {
    if (k === '_types' || k === '_extra') continue;
    out[k] = convertScalar(raw, types.get(k) ?? scalarType(k), `${where}@${k}`);
  }
  let steps: JsonObject[] | undefined = types.has('steps') ? [] : undefined;
  for (const child of elementChildren(node)) {
    const tag = tagOf(child)!;
    const w = `${where}/${tag}`;
    if (isStepKind(tag)) {
      (steps ??= []).push({ [tag]: decodeElement(child, w) });
      continue;
    }
    const t = types.get(tag) ?? childType(tag);
    switch (t) {
      case 'strings':
        ((out[tag] ??= []) as Json[]).push(textOf(child));
        break;
      case 'objects':
        ((out[tag] ??= []) as Json[]).push(decodeElement(child, w));
        break;
      case 'object':
        if (out[tag] !== undefined) throw new ImportError(`${w}: repeated element`);
        out[tag] = decodeElement(child, w);
        break;
      default:
        throw new ImportError(`${w}: an element cannot hold a ${t}`);
    }
  }
  for (const [k, t] of types) if ((t === 'strings' || t === 'objects') && k !== 'steps' && out[k] === undefined) out[k] = [];
  if (steps) out.steps = steps;
  const extra = attrs.get('_extra');
  if (extra !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(extra);
    } catch {
      throw new ImportError(`${where}@_extra: not JSON`);
    }
    if (!isJsonObject(parsed)) throw new ImportError(`${where}@_extra: not a JSON object`);
    Object.assign(out, parsed);
  }
  return out;
}

function requireString(obj: JsonObject, key: string, where: string): string {
  const v = obj[key];
  if (typeof v !== 'string' || v === '') throw new ImportError(`${where}: ${key} is required`);
  return v;
}

function uniqueIds(items: readonly JsonObject[], key: string, where: string): void {
  const seen = new Set<string>();
  for (const i of items) {
    const id = requireString(i, key, where);
    if (seen.has(id)) throw new ImportError(`${where}: duplicate ${key} ${id}`);
    seen.add(id);
  }
}

const SECTIONS: Readonly<Record<string, string | null>> = {
  Users: 'User',
  UserGroups: 'UserGroup',
  ResourceGroups: 'ResourceGroup',
  ACLs: 'ACL',
  Hosts: null,
  CustomScripts: 'CustomScript',
  StandardScripts: 'StandardScript',
  DateLists: 'DateList',
  GlobalParameters: 'GlobalParameter',
  Tasks: 'Task',
};

function readConfig(xml: string, xferType: Variants['automation.hostType']): AutomationConfig {
  const parser = new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
    processEntities: false,
    commentPropName: '#comment',
  });
  const doc = parser.parse(xml) as XmlNode[];
  const roots = doc.filter((n) => {
    const t = tagOf(n);
    return t !== undefined && t !== '#text' && t !== '#comment' && !t.startsWith('?');
  });
  if (roots.length !== 1 || tagOf(roots[0]!) !== CONFIG_ROOT) throw new ImportError(`the root element must be <${CONFIG_ROOT}>`);
  const root = roots[0]!;
  const rootAttrs = attrsOf(root);
  const sections = new Map<string, JsonObject[]>();
  const hosts: HostRecord[] = [];
  const allowedHostTypes = hostTypesFor(xferType) as string[];
  for (const sec of elementChildren(root)) {
    const tag = tagOf(sec)!;
    if (!(tag in SECTIONS)) throw new ImportError(`<${tag}> is not a section of <${CONFIG_ROOT}> (${Object.keys(SECTIONS).join(', ')})`);
    if (sections.has(tag)) throw new ImportError(`<${tag}> appears twice`);
    const itemTag = SECTIONS[tag];
    const items: JsonObject[] = [];
    for (const item of elementChildren(sec)) {
      const t = tagOf(item)!;
      const where = `${tag}/${t}[${items.length}]`;
      if (itemTag === null) {
        if (!allowedHostTypes.includes(t)) throw new ImportError(`${where}: unknown host type ${t}`);
        const fields = decodeElement(item, where);
        hosts.push({ type: t as HostType, fields });
        items.push(fields);
      } else {
        if (t !== itemTag) throw new ImportError(`${where}: <${tag}> holds <${itemTag}> elements`);
        items.push(decodeElement(item, where));
      }
    }
    sections.set(tag, items);
  }
  const get = (name: string): JsonObject[] => sections.get(name) ?? [];
  const users = get('Users');
  for (const [i, u] of users.entries()) {
    requireString(u, 'Username', `Users/User[${i}]`);
    if (typeof u.Password !== 'string') throw new ImportError(`Users/User[${i}]: Password is required`);
    u.IsAdmin = u.IsAdmin === true;
    u.MemberOf ??= [];
  }
  uniqueIds(get('UserGroups'), 'Name', 'UserGroups');
  uniqueIds(get('ResourceGroups'), 'Name', 'ResourceGroups');
  const acls = get('ACLs');
  uniqueIds(acls, 'ACLID', 'ACLs');
  for (const [i, a] of acls.entries()) {
    requireString(a, 'ResourceGroupName', `ACLs/ACL[${i}]`);
    requireString(a, 'UserGroupName', `ACLs/ACL[${i}]`);
    const p = a.Permissions;
    if (!isJsonObject(p) || !ACL_PERMISSION_KEYS.every((k) => p[k] === 0 || p[k] === 1))
      throw new ImportError(`ACLs/ACL[${i}]: Permissions needs ${ACL_PERMISSION_KEYS.join(', ')} as 0/1`);
  }
  for (const name of ['CustomScripts', 'StandardScripts', 'DateLists', 'GlobalParameters', 'Tasks']) uniqueIds(get(name), 'ID', name);
  uniqueIds(
    hosts.map((h) => h.fields),
    'ID',
    'Hosts',
  );
  const tasks = get('Tasks').map(orderTaskKeys);
  let maxId = 0;
  for (const o of [
    ...hosts.map((h) => h.fields),
    ...acls.map((a) => ({ ID: a.ACLID ?? '' })),
    ...['CustomScripts', 'StandardScripts', 'DateLists', 'GlobalParameters', 'Tasks'].flatMap(get),
  ]) {
    const id = typeof o.ID === 'string' ? o.ID : '';
    if (/^[0-9]+$/.test(id)) maxId = Math.max(maxId, Number(id));
  }
  const nextIdRaw = rootAttrs.get('NextID');
  const nextId = nextIdRaw !== undefined && /^[0-9]+$/.test(nextIdRaw) ? Number(nextIdRaw) : 0;
  return {
    users: users as AutomationUser[],
    userGroups: get('UserGroups'),
    resourceGroups: get('ResourceGroups'),
    acls: acls as AclRecord[],
    hosts,
    customScripts: get('CustomScripts'),
    standardScripts: get('StandardScripts'),
    dateLists: get('DateLists'),
    globalParameters: get('GlobalParameters'),
    tasks,
    schedulerEnabled: rootAttrs.get('SchedulerEnabled') === '1',
    nextId: Math.max(nextId, maxId + 1),
  };
}

/** PUT /config: the configuration in the XML, or 422 errors (malformed XML, unknown elements, missing ids). */
export function importConfig(
  xml: string,
  xferType: Variants['automation.hostType'],
): { ok: true; config: AutomationConfig } | { ok: false; errors: FieldError[] } {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    return {
      ok: false,
      errors: [{ field: 'xmlConfig', rejected: `line ${valid.err.line}, column ${valid.err.col}`, message: `malformed XML: ${valid.err.msg}` }],
    };
  }
  try {
    return { ok: true, config: readConfig(xml, xferType) };
  } catch (err) {
    if (err instanceof ImportError) return { ok: false, errors: [{ field: 'xmlConfig', rejected: '', message: err.message }] };
    throw err;
  }
}
