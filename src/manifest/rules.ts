import { parseSecretRef } from '../secret.js';
import { createDiagnostic } from './diagnostics.js';
import { touchesRejected } from './schema-errors.js';
import type { Diagnostic, SourcePosition } from './diagnostics.js';
import type { JsonPath, ManifestKind, SourceMap } from './types.js';
import { KIND_DOCUMENTS } from '../kinds/kind-types.js';
import { NAME_PATH } from '../kinds/model-base.js';
import { isRecord } from '../is-record.js';
import { folderPathProblem } from '../folder-path.js';

/**
 * A document as the rules see it: its kind and identity are known; `spec` is raw data, which may
 * have failed its schema (rules guard every access, they never trust shapes). Rules run on every
 * document with a known kind, so that a file's schema errors and rule errors come in one run.
 */
export interface CheckedDocument {
  readonly kind: ManifestKind;
  /** `metadata.name` when it is valid, else undefined (identity rules skip the document). */
  readonly name: string | undefined;
  readonly previousNames: readonly string[];
  readonly spec: unknown;
  /**
   * Instance paths (`['spec', 'steps', '0', 'Source']`, indices as text) of the values the schema
   * rejected; empty for a schema-valid document. A rule skips a value at, inside or around one of
   * them (`usable`).
   */
  readonly rejected: readonly (readonly string[])[];
  readonly start: SourcePosition;
  readonly sourceMap: SourceMap;
  /**
   * `metadata.environments`: the document is for these environments only; absent: for all. Read
   * without an environment, two documents for one object clash only when they share one.
   */
  readonly environments?: readonly string[];
}

/** Whether two documents can be read for one environment: either is for all, or their lists share one. */
function shareAnEnvironment(a: CheckedDocument, b: CheckedDocument): boolean {
  return a.environments === undefined || b.environments === undefined || a.environments.some((e) => b.environments!.includes(e));
}

/** The value at `path` can be checked: see touchesRejected. */
function usable(doc: CheckedDocument, path: JsonPath): boolean {
  return doc.rejected.length === 0 || !touchesRejected(doc.rejected, path);
}

/** A check the schema cannot express. Pure; sees every document of the run at once. */
export type Rule = (documents: readonly CheckedDocument[]) => Diagnostic[];

// ---------------------------------------------------------------------------- identities (MF301)

/** The values that make the document's identity, or undefined when it has no usable one (no valid name, a value not text). */
function identityValues(doc: CheckedDocument): string[] | undefined {
  if (doc.name === undefined) return undefined;
  const values: string[] = [];
  for (const path of KIND_DOCUMENTS[doc.kind].identity.paths) {
    const value = path === NAME_PATH ? doc.name : path[0] === 'spec' && path.length === 2 ? asRecord(doc.spec)?.[path[1]!] : undefined;
    if (typeof value !== 'string') return undefined;
    values.push(value);
  }
  return values;
}

/** Two documents for one server object: the task name (case-insensitive), ACL pair, folder path. */
export const checkDuplicateIdentities: Rule = (docs) => {
  const out: Diagnostic[] = [];
  const seen = new Map<string, CheckedDocument[]>();
  const seenNames = new Map<string, CheckedDocument[]>();
  /** The earlier document under `key` that clashes with `doc`, else undefined (and `doc` is remembered). */
  const clash = (map: Map<string, CheckedDocument[]>, key: string, doc: CheckedDocument): CheckedDocument | undefined => {
    const earlier = map.get(key);
    const first = earlier?.find((e) => shareAnEnvironment(e, doc));
    if (first === undefined) {
      if (earlier) earlier.push(doc);
      else map.set(key, [doc]);
    }
    return first;
  };
  for (let d = 0; d < docs.length; d++) {
    const doc = docs[d]!;
    const identity = KIND_DOCUMENTS[doc.kind].identity;
    const values = identityValues(doc);
    if (values !== undefined) {
      const key = `${doc.kind}\u0000${values.map((v) => v.toLowerCase()).join('\u0000')}`;
      const first = clash(seen, key, doc);
      if (first) {
        const at = identity.paths[0];
        out.push(
          createDiagnostic('error', 'MF301', doc.sourceMap.locate(at), `${identity.describe(values)} is defined twice`, {
            hint: 'one object, one document: merge the two or rename one',
            related: related('first defined', first.sourceMap.locate(at)),
          }),
        );
        continue;
      }
    }
    // A name that is only a label (an ACL's) must stay unique all the same: addresses are made of it.
    if (identity.label !== undefined && doc.name !== undefined) {
      const first = clash(seenNames, doc.name.toLowerCase(), doc);
      if (first) {
        out.push(
          createDiagnostic('error', 'MF301', doc.sourceMap.locate(NAME_PATH), `two ${doc.kind} documents are named \`${doc.name}\``, {
            hint: identity.label,
            related: related('first defined', first.sourceMap.locate(NAME_PATH)),
          }),
        );
      }
    }
  }
  return out;
};

// ---------------------------------------------------------------------------- previousNames (MF302)

/** A previous name must not be a live name of the same kind, the document's own, or claimed twice. */
export const checkPreviousNames: Rule = (docs) => {
  const out: Diagnostic[] = [];
  const claimedAny = docs.some((doc) => doc.name !== undefined && doc.previousNames.length > 0);
  if (!claimedAny) return out;
  const live = new Map<string, CheckedDocument>();
  for (let d = 0; d < docs.length; d++) {
    const doc = docs[d]!;
    if (doc.name === undefined) continue;
    const key = `${doc.kind}\u0000${doc.name.toLowerCase()}`;
    if (!live.has(key)) live.set(key, doc);
  }
  const claimed = new Map<string, { doc: CheckedDocument; index: number }>();
  for (let d = 0; d < docs.length; d++) {
    const doc = docs[d]!;
    if (doc.name === undefined) continue;
    const ownName = doc.name.toLowerCase();
    for (let index = 0; index < doc.previousNames.length; index++) {
      const previous = doc.previousNames[index]!;
      // Positions are looked up only for a diagnostic: locating may parse the file again.
      const at = () => doc.sourceMap.locate(['metadata', 'previousNames', index]);
      const key = `${doc.kind}\u0000${previous.toLowerCase()}`;
      const owner = live.get(key);
      if (previous.toLowerCase() === ownName) {
        out.push(
          createDiagnostic('error', 'MF302', at(), `\`previousNames\` lists the ${doc.kind}'s own name \`${previous}\``, {
            hint: 'a previous name is what the object was called before a rename',
          }),
        );
      } else if (owner) {
        out.push(
          createDiagnostic('error', 'MF302', at(), `previous name \`${previous}\` is also the name of a ${doc.kind} in these manifests`, {
            hint: 'an object cannot be renamed away from a name that is still managed: drop the previous name or the other document',
            related: related('defined', owner.sourceMap.locate(['metadata', 'name'])),
          }),
        );
      } else {
        const first = claimed.get(key);
        if (first) {
          out.push(
            createDiagnostic('error', 'MF302', at(), `previous name \`${previous}\` is claimed by two ${doc.kind} documents`, {
              hint: 'only one object can be renamed from a name',
              related: related('also claimed', first.doc.sourceMap.locate(['metadata', 'previousNames', first.index])),
            }),
          );
        } else {
          claimed.set(key, { doc, index });
        }
      }
    }
  }
  return out;
};

// ---------------------------------------------------------------------------- ACL permissions (MF303)

/** The server refuses `TaskEditExisting` off while `TaskAddEditDelete` is on (automation API §4.3 rule 7). */
export const checkAclPermissions: Rule = (docs) => {
  const out: Diagnostic[] = [];
  for (const doc of ofKind(docs, 'ResourceGroupAcl')) {
    const perms = asRecord(doc.spec)?.permissions;
    if (!Array.isArray(perms) || !usable(doc, ['spec', 'permissions'])) continue;
    const index = perms.indexOf('TaskAddEditDelete');
    if (index >= 0 && !perms.includes('TaskEditExisting')) {
      out.push(
        createDiagnostic(
          'error',
          'MF303',
          doc.sourceMap.locate(['spec', 'permissions', index]),
          '`TaskAddEditDelete` needs `TaskEditExisting`: the server refuses one without the other',
          {
            hint: 'add TaskEditExisting to permissions',
          },
        ),
      );
    }
  }
  return out;
};

// ---------------------------------------------------------------------------- steps (MF304, MF308)

/** One step of a task: `spec.steps[index][kind]` is `body`. */
interface StepRef {
  readonly doc: CheckedDocument;
  readonly index: number;
  readonly kind: string;
  readonly body: Record<string, unknown>;
}

/** Each step of each task, in document order (shared by the step rules, see derivedOf). */
function stepsOf(docs: readonly CheckedDocument[]): readonly StepRef[] {
  const memo = derivedOf(docs);
  if (memo.steps) return memo.steps;
  const out: StepRef[] = [];
  const tasks = ofKind(docs, 'Task');
  for (let t = 0; t < tasks.length; t++) {
    const doc = tasks[t]!;
    const steps = asRecord(doc.spec)?.steps;
    if (!Array.isArray(steps)) continue;
    for (let i = 0; i < steps.length; i++) {
      const step = asRecord(steps[i]);
      if (!step) continue;
      for (const kind of Object.keys(step)) {
        const record = asRecord(step[kind]);
        if (record) out.push({ doc, index: i, kind, body: record });
      }
    }
  }
  memo.steps = out;
  return out;
}

const stepPath = (step: StepRef): JsonPath => ['spec', 'steps', step.index, step.kind];

/** `DelRename` and `RenameTo` act only when the original is renamed (`DeleteOrig: 2`). */
export const checkRenameOriginal: Rule = (docs) => {
  const out: Diagnostic[] = [];
  const steps = stepsOf(docs);
  for (let s = 0; s < steps.length; s++) {
    const step = steps[s]!;
    const { doc, kind, body } = step;
    if (kind !== 'Source' || body.DeleteOrig === 2 || !usable(doc, [...stepPath(step), 'DeleteOrig'])) continue;
    const now = body.DeleteOrig === undefined ? 'not set' : String(body.DeleteOrig);
    for (const field of ['RenameTo', 'DelRename'] as const) {
      const v = body[field];
      const set = field === 'RenameTo' ? typeof v === 'string' && v !== '' : v === 1 || v === true;
      if (!set || !usable(doc, [...stepPath(step), field])) continue;
      out.push(
        createDiagnostic(
          'error',
          'MF304',
          doc.sourceMap.locate([...stepPath(step), field], 'key'),
          `\`${field}\` applies only with \`DeleteOrig: 2\` (rename the original); here DeleteOrig is ${now}`,
          {
            hint: `set DeleteOrig: 2, or remove ${field}`,
          },
        ),
      );
    }
  }
  return out;
};

/** A step names its host (script) by name or by id: exactly one of the two. */
export const checkStepReferences: Rule = (docs) => {
  const out: Diagnostic[] = [];
  const pairs: Record<string, readonly [string, string, string]> = {
    Source: ['Host', 'HostID', 'host'],
    Destination: ['Host', 'HostID', 'host'],
    Process: ['Script', 'ScriptID', 'script'],
  };
  const steps = stepsOf(docs);
  for (let s = 0; s < steps.length; s++) {
    const step = steps[s]!;
    const { doc, kind, body } = step;
    const pair = pairs[kind];
    if (!pair || !usable(doc, stepPath(step))) continue;
    const [byName, byId, noun] = pair;
    const hasName = body[byName] !== undefined;
    const hasId = body[byId] !== undefined;
    if (hasName && hasId) {
      out.push(
        createDiagnostic(
          'error',
          'MF308',
          doc.sourceMap.locate([...stepPath(step), byId], 'key'),
          `${kind} step names its ${noun} twice, by \`${byName}\` and by \`${byId}\``,
          {
            hint: `keep \`${byName}\` (names work on every server) and remove \`${byId}\``,
          },
        ),
      );
    } else if (!hasName && !hasId) {
      out.push(
        createDiagnostic(
          'error',
          'MF308',
          doc.sourceMap.locate(stepPath(step), 'key'),
          `${kind} step does not say which ${noun}: add \`${byName}\` (its name) or \`${byId}\``,
        ),
      );
    }
  }
  return out;
};

// ---------------------------------------------------------------------------- schedules (MF305)

const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;
const TIME_FIELDS = ['StartTime', 'EndTime'] as const;

/** `StartTime`/`EndTime` are `HH:mm` on a 24-hour clock. */
export const checkTimesOfDay: Rule = (docs) => {
  const out: Diagnostic[] = [];
  const tasks = ofKind(docs, 'Task');
  for (let t = 0; t < tasks.length; t++) {
    const doc = tasks[t]!;
    const schedules = asRecord(asRecord(doc.spec)?.Schedules)?.Schedule;
    if (!Array.isArray(schedules)) continue;
    for (let s = 0; s < schedules.length; s++) {
      const intervals = asRecord(asRecord(asRecord(schedules[s])?.Frequency))?.Interval;
      if (!Array.isArray(intervals)) continue;
      for (let i = 0; i < intervals.length; i++) {
        const interval: unknown = intervals[i];
        for (const field of TIME_FIELDS) {
          const v = asRecord(interval)?.[field];
          const path = ['spec', 'Schedules', 'Schedule', s, 'Frequency', 'Interval', i, field];
          if (typeof v !== 'string' || HH_MM.test(v) || !usable(doc, path)) continue;
          const short = /^\d:[0-5]\d$/.test(v) ? `write two-digit hours: 0${v}` : 'a time of day from 00:00 to 23:59, quoted: "02:00"';
          out.push(
            createDiagnostic('error', 'MF305', doc.sourceMap.locate(path), `\`${field}\` must be a time \`HH:mm\` between 00:00 and 23:59, not \`${v}\``, {
              hint: short,
            }),
          );
        }
      }
    }
  }
  return out;
};

// ---------------------------------------------------------------------------- secrets (MF307, MF310)

const SECRET_NAME = /pass(word|wd|phrase)?$|secret|token|api.?key|private.?key|credential/i;

/** Every Parameters map of a task (task level and Process steps), with its path. */
function parameterMaps(docs: readonly CheckedDocument[]): { doc: CheckedDocument; params: Record<string, unknown>; path: JsonPath }[] {
  const out: { doc: CheckedDocument; params: Record<string, unknown>; path: JsonPath }[] = [];
  const tasks = ofKind(docs, 'Task');
  for (let t = 0; t < tasks.length; t++) {
    const doc = tasks[t]!;
    const top = asRecord(asRecord(doc.spec)?.Parameters);
    if (top) out.push({ doc, params: top, path: ['spec', 'Parameters'] });
  }
  const steps = stepsOf(docs);
  for (let s = 0; s < steps.length; s++) {
    const step = steps[s]!;
    const params = step.kind === 'Process' ? asRecord(step.body.Parameters) : undefined;
    if (params) out.push({ doc: step.doc, params, path: [...stepPath(step), 'Parameters'] });
  }
  return out;
}

/**
 * A secret parameter holds a `${env:}`/`${file:}` reference only; a parameter named like a secret
 * with a literal value is a warning (it will sit in git). Passwords are checked by the schema.
 */
export const checkSecretParameters: Rule = (docs) => {
  const out: Diagnostic[] = [];
  const maps = parameterMaps(docs);
  for (let m = 0; m < maps.length; m++) {
    const { doc, params, path } = maps[m]!;
    for (const name of Object.keys(params)) {
      if (!usable(doc, [...path, name])) continue;
      const raw = params[name];
      const record = asRecord(raw);
      const value = record ? record.value : raw;
      const isRef = typeof value === 'string' && parseSecretRef(value) !== undefined;
      if (isRef) continue;
      if (record?.secret === true) {
        out.push(
          createDiagnostic(
            'error',
            'MF307',
            doc.sourceMap.locate([...path, name, 'value']),
            `secret parameter \`${name}\` must be a \`\${env:NAME}\` or \`\${file:PATH}\` reference, not a literal`,
            {
              hint: 'keep secrets out of git: reference an environment variable or a file',
            },
          ),
        );
      } else if (SECRET_NAME.test(name) && typeof value === 'string' && value !== '' && record?.secret !== false) {
        out.push(
          createDiagnostic(
            'warning',
            'MF310',
            doc.sourceMap.locate(record ? [...path, name, 'value'] : [...path, name]),
            `parameter \`${name}\` looks like a secret but holds a literal value`,
            {
              hint: 'use a ${env:NAME} or ${file:PATH} reference, or mark it `secret: false` if it is not a secret',
            },
          ),
        );
      }
    }
  }
  return out;
};

// ---------------------------------------------------------------------------- folder entries (MF309)

/** Folder ACL entries are a set keyed by user or group (case-insensitive): one entry each. */
export const checkFolderEntries: Rule = (docs) => {
  const out: Diagnostic[] = [];
  for (const doc of ofKind(docs, 'FolderPermissions')) {
    const entries = asRecord(doc.spec)?.entries;
    if (!Array.isArray(entries)) continue;
    const seen = new Map<string, number>();
    entries.forEach((entry, i) => {
      const e = asRecord(entry);
      const who: readonly [string, string] | undefined =
        typeof e?.user === 'string' ? ['user', e.user] : typeof e?.group === 'string' ? ['group', e.group] : undefined;
      if (!who || !usable(doc, ['spec', 'entries', i, who[0]])) return;
      const key = `${who[0]}\u0000${who[1].toLowerCase()}`;
      const first = seen.get(key);
      if (first !== undefined) {
        out.push(
          createDiagnostic('error', 'MF309', doc.sourceMap.locate(['spec', 'entries', i, who[0]]), `${who[0]} \`${who[1]}\` has two entries in this folder`, {
            hint: 'merge their permissions into one entry',
            related: related('first entry', doc.sourceMap.locate(['spec', 'entries', first, who[0]])),
          }),
        );
      } else {
        seen.set(key, i);
      }
    });
  }
  return out;
};

// ---------------------------------------------------------------------------- folder paths (MF324)

/**
 * A FolderPermissions path (and each previous path) names one real folder per level: no `.` or
 * `..`, no control or forbidden character. Apply creates missing folders by name, so `..` would
 * become a folder, not a step up. Empty names and spaces around a name are the schema's (MF206).
 */
export const checkFolderPaths: Rule = (docs) => {
  const out: Diagnostic[] = [];
  for (const doc of ofKind(docs, 'FolderPermissions')) {
    const paths: { path: JsonPath; value: unknown }[] = [];
    if (doc.name !== undefined) paths.push({ path: ['metadata', 'name'], value: doc.name });
    doc.previousNames.forEach((value, i) => paths.push({ path: ['metadata', 'previousNames', i], value }));
    for (const { path, value } of paths) {
      if (typeof value !== 'string' || !usable(doc, path)) continue;
      const problem = folderPathProblem(value);
      if (problem === undefined) continue;
      out.push(
        createDiagnostic('error', 'MF324', doc.sourceMap.locate(path), `folder path \`${value}\` cannot be used: ${problem}`, {
          hint: 'write the absolute path of the folder with its real names, one per level: /Distribution/Acme',
        }),
      );
    }
  }
  return out;
};

/** Every rule, in the order they run. */
export const RULES: readonly Rule[] = [
  checkDuplicateIdentities,
  checkPreviousNames,
  checkAclPermissions,
  checkRenameOriginal,
  checkStepReferences,
  checkTimesOfDay,
  checkSecretParameters,
  checkFolderEntries,
  checkFolderPaths,
];

/**
 * What the rules share about one list of documents: the documents by kind and the task steps,
 * found once instead of once per rule. Keyed by the list itself (rules never change
 * it), so a rule given another list, a slice say, works out its own.
 */
const derived = new WeakMap<readonly CheckedDocument[], { byKind: Map<ManifestKind, CheckedDocument[]>; steps?: readonly StepRef[] }>();

function derivedOf(docs: readonly CheckedDocument[]): { byKind: Map<ManifestKind, CheckedDocument[]>; steps?: readonly StepRef[] } {
  let d = derived.get(docs);
  if (!d) derived.set(docs, (d = { byKind: new Map() }));
  return d;
}

export function runRules(documents: readonly CheckedDocument[], rules: readonly Rule[] = RULES): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const rule of rules) for (const d of rule(documents)) out.push(d);
  return out;
}

function ofKind(docs: readonly CheckedDocument[], kind: ManifestKind): CheckedDocument[] {
  const byKind = derivedOf(docs).byKind;
  let list = byKind.get(kind);
  if (!list) byKind.set(kind, (list = docs.filter((d) => d.kind === kind)));
  return list;
}

function related(message: string, at: SourcePosition) {
  return { message, file: at.file, line: at.line, col: at.col };
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return isRecord(v) ? v : undefined;
}
