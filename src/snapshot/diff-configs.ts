import type { XmlElement } from './config-xml.js';
import { SENSITIVE, type ChangedObject, type ConfigDiff, type DiffKind, type FieldChange, type KindDiff } from './model.js';
import { isRecord } from '../is-record.js';

/**
 * Compare two automation exports by name: tasks, hosts and resource-group ACLs added, removed and
 * changed, with the fields that changed. Pure. Secrets never leave this function: host passwords
 * (any attribute named like a password or key), the values of parameters flagged `Secret`, and
 * any other value that contains one of those are given as `(sensitive)`; a change to them still
 * shows, without the values.
 */
export function diffConfigs(a: XmlElement, b: XmlElement): ConfigDiff {
  const secrets = new Set([...collectSecrets(a), ...collectSecrets(b)]);
  const objectsA = extractObjects(a);
  const objectsB = extractObjects(b);
  const kinds = DIFF_KINDS.map((kind): KindDiff => {
    const before = objectsA[kind];
    const after = objectsB[kind];
    const added = [...after.keys()].filter((n) => !before.has(n)).sort(byText);
    const removed = [...before.keys()].filter((n) => !after.has(n)).sort(byText);
    const changed: ChangedObject[] = [];
    for (const name of [...before.keys()].filter((n) => after.has(n)).sort(byText)) {
      const fields = diffFields(flattenObject(before.get(name)!, kind), flattenObject(after.get(name)!, kind), secrets);
      if (fields.length > 0) changed.push({ name, fields });
    }
    return { kind, added, removed, changed };
  });
  return { kinds };
}

const DIFF_KINDS: readonly DiffKind[] = ['task', 'host', 'resourceGroupAcl'];

/** The compared objects of one export, by display name. */
function extractObjects(root: XmlElement): Record<DiffKind, Map<string, XmlElement>> {
  const section = (name: string): readonly XmlElement[] => root.children.find((c) => c.name === name)?.children ?? [];
  return {
    task: byName(
      section('Tasks').filter((e) => e.name === 'Task'),
      (e) => e.attrs.Name ?? childText(e, 'Name') ?? idName(e),
    ),
    // One element per host, named by its type (<SSHFTP/>, <AS2/>…).
    host: byName(section('Hosts'), (e) => e.attrs.Name ?? childText(e, 'Name') ?? idName(e)),
    resourceGroupAcl: byName(
      section('ACLs').filter((e) => e.name === 'ACL'),
      (e) =>
        e.attrs.ResourceGroupName !== undefined && e.attrs.UserGroupName !== undefined ? `${e.attrs.ResourceGroupName} / ${e.attrs.UserGroupName}` : idName(e),
    ),
  };
}

// --- flattening ---------------------------------------------------------------------------------

/** A leaf of an object: its text and whether it is a secret. */
interface Leaf {
  readonly value: string;
  readonly sensitive: boolean;
}

/** Attribute names that hold secrets: host passwords, passphrases, keys. `Secret` itself is a 0/1 flag. */
const SECRET_NAME = /password|passwd|passphrase|private.?key|secret.?key|client.?secret|api.?key/i;

/** The emulator's dialect keeps what XML cannot carry as JSON in `_extra` (src/emulator/SPEC.md). */
const EXTRA_ATTR = '_extra';

function flattenObject(el: XmlElement, kind: DiffKind): Map<string, Leaf> {
  const out = new Map<string, Leaf>();
  switch (kind) {
    case 'host':
      out.set('(type)', { value: el.name, sensitive: false });
      break;
    case 'task':
    case 'resourceGroupAcl':
      break;
    default: {
      const never: never = kind;
      throw new Error(`unknown diff kind ${String(never)}`);
    }
  }
  flattenInto(el, '', false, out);
  return out;
}

function flattenInto(el: XmlElement, prefix: string, inSecret: boolean, out: Map<string, Leaf>): void {
  const secret = inSecret || isSecretFlagged(el);
  const attrSensitive = (name: string): boolean => SECRET_NAME.test(name) || (secret && !['Name', 'ID', 'Secret'].includes(name));
  for (const [name, value] of Object.entries(el.attrs)) {
    const extra = name === EXTRA_ATTR ? parseExtra(value) : undefined;
    if (extra) {
      for (const [k, v] of Object.entries(extra))
        out.set(join(prefix, k), { value: typeof v === 'string' ? v : JSON.stringify(v), sensitive: attrSensitive(k) });
    } else {
      out.set(join(prefix, name), { value, sensitive: attrSensitive(name) });
    }
  }
  if (el.children.length === 0 && Object.keys(el.attrs).length === 0) {
    if (prefix !== '') out.set(prefix, { value: el.text, sensitive: secret });
  } else if (el.text.trim() !== '') {
    out.set(join(prefix, '#text'), { value: el.text, sensitive: secret });
  }
  for (const [name, group] of groupByName(el.children)) {
    const path = join(prefix, name);
    if (group.every(isTextOnly)) {
      out.set(path, { value: formatList(group.map((g) => g.text)), sensitive: secret });
    } else if (group.length === 1) {
      flattenInto(group[0]!, path, secret, out);
    } else {
      const names = group.map((g) => g.attrs.Name ?? '');
      const byNameKey = names.every((n) => n !== '') && new Set(names).size === names.length;
      group.forEach((g, i) => flattenInto(g, `${path}[${byNameKey ? names[i] : i}]`, secret, out));
    }
  }
}

function diffFields(before: Map<string, Leaf>, after: Map<string, Leaf>, secrets: ReadonlySet<string>): FieldChange[] {
  const paths = [...before.keys(), ...[...after.keys()].filter((p) => !before.has(p))];
  const changes: FieldChange[] = [];
  for (const path of paths) {
    const a = before.get(path);
    const b = after.get(path);
    if (a?.value === b?.value && a !== undefined && b !== undefined) continue;
    const hidden = Boolean(a?.sensitive || b?.sensitive);
    changes.push({
      path,
      ...(a !== undefined ? { before: shown(a.value, hidden, secrets) } : {}),
      ...(b !== undefined ? { after: shown(b.value, hidden, secrets) } : {}),
    });
  }
  return changes;
}

function shown(value: string, hidden: boolean, secrets: ReadonlySet<string>): string {
  if (hidden) return SENSITIVE;
  for (const s of secrets) if (value.includes(s)) return SENSITIVE;
  return value;
}

/** Every secret value in an export (the whole document, users included), for scrubbing other fields. */
function collectSecrets(root: XmlElement): Set<string> {
  const found = new Set<string>();
  const add = (v: string): void => {
    // Short values ("0", "", "yes") would blank out half the diff; they are not passwords.
    if (v.length >= 4) found.add(v);
  };
  const walk = (el: XmlElement, inSecret: boolean): void => {
    const secret = inSecret || isSecretFlagged(el);
    for (const [name, value] of Object.entries(el.attrs)) {
      const extra = name === EXTRA_ATTR ? parseExtra(value) : undefined;
      if (extra) {
        for (const [k, v] of Object.entries(extra)) if (typeof v === 'string' && (SECRET_NAME.test(k) || secret)) add(v);
      } else if (SECRET_NAME.test(name) || (secret && !['Name', 'ID', 'Secret'].includes(name))) {
        add(value);
      }
    }
    if (secret && el.text.trim() !== '') add(el.text);
    for (const c of el.children) walk(c, secret);
  };
  walk(root, false);
  return found;
}

/** `<Parameter Name="ApiKey" value="…" Secret="1"/>`: the element's values are secret. */
function isSecretFlagged(el: XmlElement): boolean {
  const flag = el.attrs.Secret ?? el.attrs.secret;
  return flag !== undefined && ['1', 'true'].includes(flag.trim().toLowerCase());
}

function parseExtra(value: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(value);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function isTextOnly(el: XmlElement): boolean {
  return el.children.length === 0 && Object.keys(el.attrs).length === 0;
}

function formatList(items: readonly string[]): string {
  if (items.length === 1) return items[0]!;
  return items.some((i) => i.includes(',')) ? JSON.stringify(items) : items.join(', ');
}

function groupByName(children: readonly XmlElement[]): Map<string, XmlElement[]> {
  const groups = new Map<string, XmlElement[]>();
  for (const c of children) {
    const g = groups.get(c.name);
    if (g) g.push(c);
    else groups.set(c.name, [c]);
  }
  return groups;
}

function byName(elements: readonly XmlElement[], nameOf: (e: XmlElement) => string): Map<string, XmlElement> {
  const out = new Map<string, XmlElement>();
  for (const e of elements) {
    const base = nameOf(e);
    let name = base;
    for (let n = 2; out.has(name); n++) name = `${base} (${n})`;
    out.set(name, e);
  }
  return out;
}

function childText(el: XmlElement, name: string): string | undefined {
  return el.children.find((c) => c.name === name && isTextOnly(c))?.text;
}

function idName(el: XmlElement): string {
  const id = el.attrs.ID ?? el.attrs.ACLID;
  return id !== undefined ? `${el.name} ID ${id}` : el.name;
}

function join(prefix: string, name: string): string {
  return prefix === '' ? name : `${prefix}.${name}`;
}

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
