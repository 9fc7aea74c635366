import { relative, isAbsolute, sep } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { DriftedEntry, DriftedField, DriftedObject, DriftReport, UnmanagedObject } from '../drift/model.js';
import { folderKey } from '../folder-path.js';
import { isPathNamed } from '../kinds/address.js';
import { KINDS } from '../kinds/registry.js';
import type { ImportedManifest } from '../import/model.js';
import { referenceLookalike } from '../reference-lookalike.js';
import { isRecord } from '../is-record.js';
import type { LiveState } from '../live/model.js';
import type { JsonPath, Manifest } from '../manifest/types.js';
import type { JsonValue } from '../plan/model.js';
import { compareText } from '../order.js';
import { parseFieldPath } from '../resources/common.js';
import { withDefined } from '../with-defined.js';
import { documentIndexAt, editManifestText } from './edit-manifest-text.js';
import type { EditOptions, ManifestEdit } from './edit-manifest-text.js';
import type { AdoptedNewManifest, AdoptedObject, AdoptionOutcome, AdoptionRefusal, EditedFile } from './model.js';

export interface AdoptionInput {
  /** The drift report of the environment (acknowledged differences are not in it, so never adopted). */
  readonly report: DriftReport;
  /** The environment's manifests the report was computed from. */
  readonly manifests: readonly Manifest[];
  /** The text of each manifest file, by the file as the manifests name it (`Manifest.source.file`). */
  readonly texts: ReadonlyMap<string, string>;
  /** The live state the report was computed from: what objects created on the server are. */
  readonly live: LiveState;
  /** The addresses asked for; absent or empty: every drifted and unmanaged object. */
  readonly addresses?: readonly string[];
  /** The working folder: files in reasons are shown relative to it. */
  readonly cwd: string;
  /** Objects not to adopt after all, by address, with the reason (what a check of the edited manifests found). */
  readonly exclude?: ReadonlyMap<string, string>;
  /**
   * An object created on the server as its new manifest, as `mftops import` makes it (the import
   * converters, which read the kinds' schemas: the caller passes them so that this stays pure);
   * undefined when the live state does not hold it.
   */
  readonly newManifest: (object: UnmanagedObject) => ImportedManifest | undefined;
  /** The `${env:}` placeholders `newManifest` wrote for the server's secrets: the only references a new manifest may hold. */
  readonly placeholders?: () => readonly string[];
  /**
   * The other environments that load this document (`raw`) of `file`: a shared manifests folder,
   * and no `metadata.environments` that leaves them out. An edit there would change them too.
   */
  readonly sharedWith?: (file: string, raw: unknown) => readonly string[];
  /** Where a key adoption adds goes among its siblings (`schemaKeyOrder`: where `mftops fmt` puts it). */
  readonly keyOrder?: EditOptions['keyOrder'];
}

/**
 * What adoption changes (pure): per drifted object asked for, the edits that make its manifest say
 * what the server has, only at the fields and entries the report says differ (the rest of the file
 * keeps its text); a document removed for an object deleted on the server; a new manifest, as
 * `mftops import` writes it, for an object created on the server. A field written by `${var:}` or
 * by a `kind: Patch`, a secret, an id no list names: refused for that field, with the reason. Every
 * file's edits are applied here, so a file the editor cannot change is a refusal before anything
 * is written.
 */
export function planAdoption(input: AdoptionInput): AdoptionOutcome {
  const refused: AdoptionRefusal[] = [];
  const inSync: string[] = [];
  const { drifted, unmanaged } = selectObjects(input, refused, inSync);
  const show = (file: string) => shownFile(file, input.cwd);

  const byFile = new Map<string, { objects: { object: AdoptedObject; edits: ManifestEdit[] }[]; docs: DocumentTexts }>();
  for (const object of drifted) {
    const excluded = input.exclude?.get(object.address);
    if (excluded !== undefined) {
      refused.push({ address: object.address, why: 'unsafe', reason: excluded });
      continue;
    }
    const manifest = findManifest(input.manifests, object);
    const text = manifest === undefined ? undefined : input.texts.get(manifest.source.file);
    if (manifest === undefined || text === undefined) {
      refused.push({ address: object.address, why: 'unsafe', reason: 'its manifest was not found among the files read' });
      continue;
    }
    const document = documentIndexAt(text, manifest.source.line);
    if (document === undefined) {
      refused.push({ address: object.address, why: 'unsafe', reason: `no YAML document at ${show(manifest.source.file)}:${manifest.source.line}` });
      continue;
    }
    let entry = byFile.get(manifest.source.file);
    if (entry === undefined) {
      entry = { objects: [], docs: readDocuments(text) };
      byFile.set(manifest.source.file, entry);
    }
    const raw = entry.docs.values[document];
    const sharers = input.sharedWith?.(manifest.source.file, raw) ?? [];
    if (sharers.length > 0) {
      refused.push({
        address: object.address,
        why: 'unsafe',
        reason: `${show(manifest.source.file)} is also loaded by environment ${sharers.join(', ')}: adopting here would change ${sharers.length === 1 ? 'it' : 'them'} too (pass --shared to adopt it for all of them, write the change as a kind: Patch of this environment, or limit the document with metadata.environments)`,
      });
      continue;
    }
    const planned = planObject(object, manifest, document, raw, show);
    refused.push(...planned.refused);
    if (planned.edits.length === 0) continue;
    entry.objects.push({
      object: {
        address: object.address,
        kind: object.kind,
        drift: object.drift,
        outcome: planned.removed ? 'removed' : 'changed',
        paths: planned.paths,
        ...withDefined({ lastChange: object.lastChange }),
      },
      edits: planned.edits,
    });
  }

  const files: EditedFile[] = [];
  for (const [file, { objects, docs }] of [...byFile].sort((a, b) => compareText(a[0], b[0]))) {
    const before = input.texts.get(file)!;
    const edited = editFile(before, objects, docs.values.length, withDefined({ keyOrder: input.keyOrder }));
    for (const { object, problem } of edited.refused)
      refused.push({ address: object.address, why: 'unsafe', reason: `${show(file)} cannot be edited in place: ${problem}` });
    if (edited.objects.length > 0) files.push({ file, before, ...withDefined({ after: edited.after }), objects: edited.objects });
  }

  const created: AdoptedNewManifest[] = [];
  for (const object of unmanaged) {
    const manifest = input.newManifest(object);
    if (manifest === undefined) {
      refused.push({ address: object.address, why: 'unsafe', reason: 'the object was not found in what was read from the server' });
      continue;
    }
    const lookalike = referenceLookalike(manifest.document.spec, input.placeholders?.() ?? []);
    if (lookalike !== undefined) {
      refused.push({ address: object.address, why: 'unsafe', reason: lookalike });
      continue;
    }
    created.push({ address: object.address, manifest, ...withDefined({ lastChange: object.lastChange }) });
  }
  refused.sort((a, b) => compareText(a.address, b.address) || compareText(a.path ?? '', b.path ?? ''));
  return { files, created, refused, inSync };
}

/**
 * The file with every object's edits applied at once (the editor reads document indexes and list
 * indexes in the original text); when the editor refuses, each object is tried on top of those it
 * accepted, so one object it cannot edit does not hold back the others. `after` is absent when
 * every document of the file is removed: the file goes.
 */
function editFile(
  before: string,
  objects: readonly { object: AdoptedObject; edits: ManifestEdit[] }[],
  documents: number,
  options: EditOptions,
): { after?: string; objects: AdoptedObject[]; refused: { object: AdoptedObject; problem: string }[] } {
  const all = objects.flatMap((o) => o.edits);
  if (all.filter((e) => e.op === 'remove-document').length === documents) return { objects: objects.map((o) => o.object), refused: [] };
  const whole = editManifestText(before, all, options);
  if (whole.ok) return { after: whole.text, objects: objects.map((o) => o.object), refused: [] };
  const accepted: ManifestEdit[] = [];
  const kept: AdoptedObject[] = [];
  const refused: { object: AdoptedObject; problem: string }[] = [];
  let after: string | undefined;
  for (const o of objects) {
    const tried = editManifestText(before, [...accepted, ...o.edits], options);
    if (!tried.ok) {
      refused.push({ object: o.object, problem: tried.problem });
      continue;
    }
    accepted.push(...o.edits);
    kept.push(o.object);
    after = tried.text;
  }
  return { ...withDefined({ after }), objects: kept, refused };
}

// ------------------------------------------------------------------------------------ selection

function selectObjects(input: AdoptionInput, refused: AdoptionRefusal[], inSync: string[]): { drifted: DriftedObject[]; unmanaged: UnmanagedObject[] } {
  const { report } = input;
  const asked = input.addresses ?? [];
  if (asked.length === 0) return { drifted: [...report.drifted], unmanaged: [...report.unmanaged] };
  const drifted: DriftedObject[] = [];
  const unmanaged: UnmanagedObject[] = [];
  const managed = report.plan.changes.filter((c) => c.action !== 'delete').map((c) => c.address);
  for (const address of new Set(asked)) {
    const same = (a: string) => a === address || a.toLowerCase() === address.toLowerCase();
    const d = report.drifted.find((o) => same(o.address));
    const u = d === undefined ? report.unmanaged.find((o) => same(o.address)) : undefined;
    if (d !== undefined) drifted.push(d);
    else if (u !== undefined) unmanaged.push(u);
    else if (managed.some(same) || report.acknowledged.some((a) => same(a.address))) inSync.push(address);
    else refused.push({ address, why: 'unknown', reason: 'names no drifted, unmanaged or managed object of this environment' });
  }
  return { drifted, unmanaged };
}

function findManifest(manifests: readonly Manifest[], object: DriftedObject): Manifest | undefined {
  const ofKind = manifests.filter((m) => m.kind === object.kind);
  // A kind named by folder paths compares them as folder keys (`/A/B/` is `/a/b`).
  if (isPathNamed(object.kind)) return ofKind.find((m) => folderKey(m.name) === folderKey(object.name));
  return ofKind.find((m) => m.name === object.name) ?? ofKind.find((m) => m.name.toLowerCase() === object.name.toLowerCase());
}

// ---------------------------------------------------------------------------------- one object

interface PlannedObject {
  readonly edits: ManifestEdit[];
  readonly paths: string[];
  readonly refused: AdoptionRefusal[];
  readonly removed: boolean;
}

/** Reasons whose differences are a rename or an unknown: adopting them would be a guess. */
const RENAMES = new Set(['user-rename', 'folder-root-rename', 'folder-move', 'group-members-unknown']);

function planObject(object: DriftedObject, manifest: Manifest, document: number, raw: unknown, show: (file: string) => string): PlannedObject {
  const out: PlannedObject = { edits: [], paths: [], refused: [], removed: false };
  const refuse = (why: AdoptionRefusal['why'], reason: string, path?: string) =>
    out.refused.push({ address: object.address, why, reason, ...withDefined({ path }) });

  if (object.drift === 'missing') {
    // Deleted on the server: the document goes. A patch that targets it would be left without an object.
    const patched = Object.keys(manifest.spec)
      .map((key) => manifest.sourceMap.patchedAt?.(['spec', key]))
      .find((p) => p !== undefined);
    if (patched !== undefined) {
      refuse('patch', `deleted on the server, but the kind: Patch at ${show(patched.file)}:${patched.line} targets it: remove both by hand`);
      return out;
    }
    out.edits.push({ op: 'remove-document', document });
    return { ...out, removed: true };
  }
  if (object.reason !== undefined && RENAMES.has(object.reason.code)) {
    refuse('unsafe', `${object.reason.code}: the difference is a name or what the server would not tell, not a field to copy; edit the manifest by hand`);
    return out;
  }
  for (const field of object.fields) planField(object, manifest, document, raw, field, out, refuse, show);
  for (const entry of object.entries) planEntry(manifest, document, raw, entry, out, refuse, show);
  return { ...out, edits: collapseEmptied(out.edits, raw, document) };
}

/**
 * Deletes that empty a list or map (the last criterion of `Criteria.comp`, every item of
 * `Interval`) become the delete of that list or map, upward to the spec's own keys: a manifest may
 * not hold an empty `comp`, and the server has none of it either.
 */
function collapseEmptied(edits: readonly ManifestEdit[], raw: unknown, document: number): ManifestEdit[] {
  const key = (path: JsonPath) => JSON.stringify(path);
  const deleted = new Map<string, JsonPath>();
  for (const e of edits) if (e.op === 'delete') deleted.set(key(e.path), e.path);
  if (deleted.size === 0) return [...edits];
  const kept = new Set<string>();
  for (const e of edits) if (e.op === 'set' || e.op === 'append') for (let n = 1; n <= e.path.length; n++) kept.add(key(e.path.slice(0, n)));
  for (let changed = true; changed; ) {
    changed = false;
    for (const path of [...deleted.values()]) {
      const parent = path.slice(0, -1);
      if (parent.length < 2 || kept.has(key(parent)) || deleted.has(key(parent))) continue;
      const container = rawAt(raw, parent).value;
      const children: JsonPath[] = Array.isArray(container)
        ? container.map((_, i) => [...parent, i])
        : isRecord(container)
          ? Object.keys(container).map((k) => [...parent, k])
          : [];
      if (children.length === 0 || !children.every((c) => deleted.has(key(c)))) continue;
      for (const c of children) deleted.delete(key(c));
      deleted.set(key(parent), parent);
      changed = true;
    }
  }
  const deletes = [...deleted.values()].map((path): ManifestEdit => ({ op: 'delete', document, path }));
  return [...edits.filter((e) => e.op !== 'delete'), ...deletes];
}

type Refuse = (why: AdoptionRefusal['why'], reason: string, path?: string) => void;

function planField(
  object: DriftedObject,
  manifest: Manifest,
  document: number,
  raw: unknown,
  field: DriftedField,
  out: PlannedObject,
  refuse: Refuse,
  show: (file: string) => string,
): void {
  const segments = parseFieldPath(field.path);
  const path: JsonPath = ['spec', ...segments];
  if (segments.length === 1 && typeof segments[0] === 'string' && KINDS[object.kind].nameSets?.includes(segments[0]) === true) {
    planSetItem(document, raw, segments[0], field, out, refuse);
    return;
  }
  const written = rawAt(raw, path);
  if (!guardWritten(manifest, path, written, field.path, refuse, show)) return;
  const actual = field.actual === undefined ? undefined : unwrapData(field.actual);
  if (actual !== undefined) {
    const problem = markerProblem(actual);
    if (problem !== undefined) {
      refuse(problem.why, problem.reason, field.path);
      return;
    }
  }
  const last = segments[segments.length - 1];
  if (actual === undefined) {
    out.edits.push({ op: 'delete', document, path });
  } else if (field.expected === undefined && typeof last === 'number') {
    // An item the server has past the end of the manifest's list.
    out.edits.push({ op: 'append', document, path: path.slice(0, -1), value: actual });
  } else if (isRecord(written.value) && 'value' in written.value && !isRecord(actual) && segments.includes('Parameters')) {
    // A parameter written as `{value: …, secret: false}` keeps its form.
    out.edits.push({ op: 'set', document, path: [...path, 'value'], value: actual });
  } else {
    out.edits.push({ op: 'set', document, path, value: inWrittenForm(written.value, actual) });
  }
  out.paths.push(field.path);
}

/** An item of a set of names (`KindDefinition.nameSets`: a group's members) the server added (`actual`) or removed (`expected`): the list item, by name. */
function planSetItem(document: number, raw: unknown, key: string, field: DriftedField, out: PlannedObject, refuse: Refuse): void {
  const listed = rawAt(raw, ['spec', key]);
  const items = Array.isArray(listed.value) ? listed.value : [];
  if (typeof field.actual === 'string') {
    const lookalike = referenceLookalike(field.actual, []);
    if (lookalike !== undefined) {
      refuse('unsafe', lookalike, key);
      return;
    }
    out.edits.push({ op: 'append', document, path: ['spec', key], value: field.actual });
    out.paths.push(`${key}: ${field.actual}`);
    return;
  }
  const name = typeof field.expected === 'string' ? field.expected.toLowerCase() : undefined;
  const index = items.findIndex((m) => typeof m === 'string' && m.toLowerCase() === name);
  if (index < 0 || typeof items[index] !== 'string' || String(items[index]).includes('${')) {
    refuse('unsafe', `the ${key} item is not written as a plain name in the manifest`, key);
    return;
  }
  out.edits.push({ op: 'delete', document, path: ['spec', key, index] });
  out.paths.push(`${key}: ${String(field.expected)}`);
}

/** A folder entry: its permissions as the server has them, removed, or appended (an `exact` manifest's extra). */
function planEntry(
  manifest: Manifest,
  document: number,
  raw: unknown,
  entry: DriftedEntry,
  out: PlannedObject,
  refuse: Refuse,
  show: (file: string) => string,
): void {
  const listed = rawAt(raw, ['spec', 'entries']);
  const entries = Array.isArray(listed.value) ? listed.value : [];
  const key = entry.principal.type === 'User' ? 'user' : 'group';
  const lookalike = referenceLookalike(entry.principal.name, []);
  if (lookalike !== undefined) {
    refuse('unsafe', lookalike, `entries[${key}:${entry.principal.name}]`);
    return;
  }
  const name = entry.principal.name.toLowerCase();
  const index = entries.findIndex((e) => isRecord(e) && typeof e[key] === 'string' && e[key].toLowerCase() === name);
  const grant = (g: NonNullable<DriftedEntry['actual']>) => ({
    permissions: [...g.permissions],
    ...(g.sharePermissions.length > 0 ? { sharePermissions: [...g.sharePermissions] } : {}),
  });
  if (entry.drift === 'extra') {
    if (entry.actual === undefined) return;
    out.edits.push({ op: 'append', document, path: ['spec', 'entries'], value: { [key]: entry.principal.name, ...grant(entry.actual) } });
    out.paths.push(entry.path);
    return;
  }
  if (index < 0) {
    refuse('unsafe', 'the entry is not written in the manifest under this name (a variable or a patch gives it)', entry.path);
    return;
  }
  const path: JsonPath = ['spec', 'entries', index];
  if (!guardWritten(manifest, path, rawAt(raw, path), entry.path, refuse, show)) return;
  if (entry.drift === 'missing') {
    out.edits.push({ op: 'delete', document, path });
    out.paths.push(entry.path);
    return;
  }
  if (entry.actual === undefined) return;
  const written = entries[index] as Record<string, unknown>;
  out.edits.push({ op: 'set', document, path: [...path, 'permissions'], value: [...entry.actual.permissions] });
  if (entry.actual.sharePermissions.length > 0)
    out.edits.push({ op: 'set', document, path: [...path, 'sharePermissions'], value: [...entry.actual.sharePermissions] });
  else if (written.sharePermissions !== undefined) out.edits.push({ op: 'delete', document, path: [...path, 'sharePermissions'] });
  out.paths.push(entry.path);
}

/**
 * Whether the value at `path` may be replaced: not when a `kind: Patch` gives it (the patch would
 * still win; editing the base document is not what the reader means), not when the manifest writes
 * it with `${var:NAME}` (the variable serves other places too), not when it is a secret reference.
 */
function guardWritten(manifest: Manifest, path: JsonPath, written: Written, shown: string, refuse: Refuse, show: (file: string) => string): boolean {
  const patched = manifest.sourceMap.patchedAt?.(path);
  if (patched !== undefined) {
    refuse('patch', `the kind: Patch at ${show(patched.file)}:${patched.line} gives this value: adopt it in the patch by hand`, shown);
    return false;
  }
  const texts = stringsIn(written.value);
  if (written.stoppedAt !== undefined) texts.push(written.stoppedAt);
  const variable = texts.map((t) => /\$\{var:([^}]*)\}/.exec(t)?.[1]).find((v) => v !== undefined);
  if (variable !== undefined) {
    refuse('variable', `written as \${var:${variable}}: change the variable in mftops.yaml or write the value in the manifest by hand`, shown);
    return false;
  }
  if (texts.some((t) => /\$\{(env|file):/.test(t))) {
    refuse('secret', 'a secret: changed on the server, not adoptable', shown);
    return false;
  }
  return true;
}

/** A value the plan could only show as a marker: a secret, or an id no list names. */
function markerProblem(value: JsonValue): { why: AdoptionRefusal['why']; reason: string } | undefined {
  if (typeof value === 'string') {
    const lookalike = referenceLookalike(value, []);
    return lookalike === undefined ? undefined : { why: 'unsafe', reason: lookalike };
  }
  if (Array.isArray(value)) {
    for (const item of value) {
      const p = markerProblem(item);
      if (p !== undefined) return p;
    }
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  if ('$sensitive' in value) return { why: 'secret', reason: 'holds a secret: changed on the server, not adoptable' };
  if ('$ref' in value)
    return { why: 'unsafe', reason: `the server's value is a ${String(value.$ref)} id (${String(value.id)}) that no ${String(value.$ref)} list names` };
  for (const v of Object.values(value)) {
    const p = markerProblem(v);
    if (p !== undefined) return p;
  }
  return undefined;
}

/** A data object the plan wrapped (`{"$data": …}`, keys starting with `$`), unwrapped. */
function unwrapData(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(unwrapData);
  if (value === null || typeof value !== 'object') return value;
  if ('$data' in value && Object.keys(value).length === 1 && isRecord(value.$data)) return unwrapData(value.$data as JsonValue);
  if ('$sensitive' in value || '$ref' in value) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unwrapData(v)]));
}

/** A 0/1 flag the manifest writes as `true`/`false` stays a boolean. */
function inWrittenForm(written: unknown, value: JsonValue): JsonValue {
  if (typeof written === 'boolean' && (value === 0 || value === 1)) return value === 1;
  return value;
}

// ------------------------------------------------------------------------- the written document

interface DocumentTexts {
  /** Each YAML document of the file as written (variables unsubstituted, no patch applied). */
  readonly values: readonly unknown[];
}

function readDocuments(text: string): DocumentTexts {
  return { values: parseAllDocuments(text).map((d) => ('toJS' in d ? d.toJS() : undefined)) };
}

interface Written {
  /** The value at the path as written; undefined when the path is not written. */
  readonly value: unknown;
  /** A string met on the way (a `${var:}` giving a whole map or list): the path goes through it. */
  readonly stoppedAt?: string;
}

function rawAt(root: unknown, path: JsonPath): Written {
  let at: unknown = root;
  for (const segment of path) {
    if (typeof at === 'string') return { value: undefined, stoppedAt: at };
    if (typeof segment === 'number') at = Array.isArray(at) ? at[segment] : undefined;
    else at = isRecord(at) ? at[segment] : undefined;
    if (at === undefined) return { value: undefined };
  }
  return { value: at };
}

function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (isRecord(value)) return Object.values(value).flatMap(stringsIn);
  return [];
}

function shownFile(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : file;
}
