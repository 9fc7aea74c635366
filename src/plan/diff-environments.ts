import { isRecord } from '../is-record.js';
import type { Manifest } from '../manifest/types.js';
import type { ManifestOf } from '../kinds/kind.js';
import { EVERY_KIND, kindOf } from '../kinds/registry.js';
import { compareText } from '../order.js';
import { canonicalJson, joinPath, PASSWORD_FIELD, sensitiveValue, toJson } from '../resources/common.js';
import { formatAddress, type Action, type JsonValue, type Plan, type ResourceKind, type SourceRef } from './model.js';
import { sourceRef } from './compute-plan.js';

/**
 * The promotion view (`mftops diff-env A B`): what differs between two environments, object by
 * object, as plain data. Objects are matched by identity, as MF301 matches them (task name and
 * folder path case-insensitive, an ACL by its resource group and user group), never by file:
 * each environment may declare an object in a folder of its own.
 */
export interface EnvironmentDiff {
  /** The two environments in the order given: `a`, then `b`. */
  readonly a: string;
  readonly b: string;
  /** Manifests only (`--offline`): no server was read, `live` is absent on every object. */
  readonly offline: boolean;
  /**
   * Every object that differs in some way: declared in one environment only, declared with
   * different values, or (servers read) not in sync with its own environment's manifests on
   * either side. Sorted by kind (Task, ResourceGroupAcl, FolderPermissions), then name.
   */
  readonly objects: readonly ObjectDiff[];
  readonly summary: EnvironmentDiffSummary;
}

/** Counts of the objects, each counted once in one of the first four. */
export interface EnvironmentDiffSummary {
  readonly onlyInA: number;
  readonly onlyInB: number;
  /** Declared in both with different values. */
  readonly differ: number;
  /** Declared alike in both and, servers read, in sync on both: not listed in `objects`. */
  readonly same: number;
  /** Declared alike in both, listed only because a server is not in sync with its manifests. */
  readonly sameButNotInSync: number;
}

/**
 * - `only-in-a`, `only-in-b`: declared by one environment's manifests only (promoting would
 *   create it, or it is left behind);
 * - `differ`: declared by both, `fields` lists the values that differ;
 * - `same`: declared alike by both; listed because a server is not in sync (`live`).
 */
export type Presence = 'only-in-a' | 'only-in-b' | 'differ' | 'same';

export interface ObjectDiff {
  /** `Kind/name`, the plan's address, with the name as environment `a` writes it (else `b`). */
  readonly address: string;
  readonly kind: ResourceKind;
  /** Task name, folder path, or an ACL's `metadata.name`. */
  readonly name: string;
  readonly presence: Presence;
  /**
   * `differ` only: each field whose desired values differ, in the order `a` writes them (then `b`'s own). A side that does not
   * set the field has no value. Lists of plain values are compared as sets (sorted), folder
   * permission entries by user or group (`entries[group Finance Team]`).
   */
  readonly fields: readonly EnvFieldDiff[];
  /** Where each environment declares the object, relative to the working folder. */
  readonly source: { readonly a?: SourceRef; readonly b?: SourceRef };
  /** Servers read: how each environment's server stands against that environment's own manifests. */
  readonly live?: { readonly a?: LiveStanding; readonly b?: LiveStanding };
}

export interface EnvFieldDiff {
  /** `Info.Description`, `steps[0].Source.Host`, `entries[user carol].permissions`. */
  readonly path: string;
  /** Absent: the environment does not set the field. */
  readonly a?: JsonValue;
  readonly b?: JsonValue;
}

/**
 * What the environment's plan would do to the object: `no-op` is in sync; any other action
 * (`create`, `update`, `replace`, `blocked`) means the server differs from the manifests, the
 * `fields` (paths) saying where.
 */
export interface LiveStanding {
  readonly inSync: boolean;
  readonly action: Action;
  /** Paths of the fields (or folder entries) the plan changes; empty when in sync. */
  readonly fields: readonly string[];
}

/** One environment's side of the comparison: its manifests and, servers read, its plan. */
export interface EnvironmentSide {
  readonly name: string;
  readonly manifests: readonly Manifest[];
  /** Absent offline. */
  readonly plan?: Plan;
}

/** Compare two environments (pure): desired against desired, and each plan's standing per object. */
export function compareEnvironments(a: EnvironmentSide, b: EnvironmentSide, options: { readonly cwd?: string } = {}): EnvironmentDiff {
  const offline = a.plan === undefined || b.plan === undefined;
  const left = byIdentity(a.manifests);
  const right = byIdentity(b.manifests);
  const keys = [...new Set([...left.keys(), ...right.keys()])];
  const objects: ObjectDiff[] = [];
  const summary = { onlyInA: 0, onlyInB: 0, differ: 0, same: 0, sameButNotInSync: 0 };
  for (const key of keys) {
    const ma = left.get(key);
    const mb = right.get(key);
    const shown = (ma ?? mb)!;
    const fields = ma && mb ? diffFields(flatten(ma), flatten(mb)) : [];
    const presence: Presence = ma === undefined ? 'only-in-b' : mb === undefined ? 'only-in-a' : fields.length > 0 ? 'differ' : 'same';
    const live = offline ? undefined : { ...(ma ? { a: standingOf(a.plan!, ma) } : {}), ...(mb ? { b: standingOf(b.plan!, mb) } : {}) };
    const outOfSync = live !== undefined && (live.a?.inSync === false || live.b?.inSync === false);
    switch (presence) {
      case 'only-in-a':
        summary.onlyInA++;
        break;
      case 'only-in-b':
        summary.onlyInB++;
        break;
      case 'differ':
        summary.differ++;
        break;
      case 'same':
        if (!outOfSync) {
          summary.same++;
          continue;
        }
        summary.sameButNotInSync++;
        break;
      default: {
        const never: never = presence;
        throw new Error(`unknown presence ${String(never)}`);
      }
    }
    objects.push({
      address: formatAddress(shown.kind, shown.name),
      kind: shown.kind,
      name: shown.name,
      presence,
      fields,
      source: { ...(ma ? { a: sourceRef(ma.source, options.cwd) } : {}), ...(mb ? { b: sourceRef(mb.source, options.cwd) } : {}) },
      ...(live ? { live } : {}),
    });
  }
  objects.sort((x, y) => EVERY_KIND.indexOf(x.kind) - EVERY_KIND.indexOf(y.kind) || compareText(x.name, y.name));
  return { a: a.name, b: b.name, offline, objects, summary };
}

/** True when the two environments differ in anything the view lists (the exit code 2 of diff-env). */
export function environmentsDiffer(diff: EnvironmentDiff): boolean {
  return diff.objects.length > 0;
}

/** What makes two documents the same server object (as MF301 decides), with the kind. */
function identityOf<K extends ResourceKind>(m: ManifestOf<K>): string {
  return `${m.kind}\u0000${kindOf<K>(m.kind).identityOf(m)}`;
}

function byIdentity(manifests: readonly Manifest[]): Map<string, Manifest> {
  const out = new Map<string, Manifest>();
  // An object declared twice is MF301, an error that stops before this: the first one wins.
  for (const m of manifests) if (!out.has(identityOf(m))) out.set(identityOf(m), m);
  return out;
}

/** The manifest's name and spec (as its kind compares it: `comparedSpec`, `principalLists`) as leaf paths and values. */
function flatten<K extends ResourceKind>(m: ManifestOf<K>): Map<string, JsonValue> {
  const out = new Map<string, JsonValue>();
  out.set('metadata.name', m.name);
  const definition = kindOf<K>(m.kind);
  const spec = toJson(definition.comparedSpec(m));
  if (isRecord(spec)) for (const [key, value] of Object.entries(spec)) flattenValue(key, value as JsonValue, out, definition.principalLists.includes(key));
  return out;
}

/**
 * Secrets are never compared or shown, as in a plan: password fields and secret parameter values
 * (reference text or not) become `{"$sensitive": true}`.
 */
function flattenValue(path: string, value: JsonValue, out: Map<string, JsonValue>, entries = false): void {
  // `forceChangePassword` (a boolean, no secret) matches the name and is compared.
  if (PASSWORD_FIELD.test(path.slice(path.lastIndexOf('.') + 1)) && typeof value !== 'boolean') {
    out.set(path, sensitiveValue());
    return;
  }
  if (isRecord(value) && value['secret'] === true && 'value' in value) {
    out.set(joinPath(path, 'value'), sensitiveValue());
    out.set(joinPath(path, 'secret'), true);
    return;
  }
  if (Array.isArray(value)) {
    if (value.every((v) => v === null || typeof v !== 'object')) {
      out.set(path, value);
      return;
    }
    value.forEach((item, i) => flattenValue(entries ? `${path}[${principalOf(item)}]` : joinPath(path, i), item, out));
    return;
  }
  if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) flattenValue(joinPath(path, key), item as JsonValue, out);
    return;
  }
  out.set(path, value);
}

/** `user carol`, `group Finance Team`: a folder entry's key, as the server compares it. */
function principalOf(entry: JsonValue): string {
  if (!isRecord(entry)) return '?';
  return typeof entry['user'] === 'string' ? `user ${entry['user'].toLowerCase()}` : `group ${String(entry['group']).toLowerCase()}`;
}

function diffFields(a: Map<string, JsonValue>, b: Map<string, JsonValue>): EnvFieldDiff[] {
  const paths = [...new Set([...a.keys(), ...b.keys()])];
  const out: EnvFieldDiff[] = [];
  for (const path of paths) {
    const va = a.get(path);
    const vb = b.get(path);
    if (va !== undefined && vb !== undefined && comparable(va) === comparable(vb)) continue;
    out.push({ path, ...(va !== undefined ? { a: va } : {}), ...(vb !== undefined ? { b: vb } : {}) });
  }
  return out;
}

/** A value as compared: a list of plain values as a set (`[Monday, Friday]` is `[Friday, Monday]`). */
function comparable(value: JsonValue): string {
  return canonicalJson(Array.isArray(value) ? [...value].sort((x, y) => compareText(canonicalJson(x), canonicalJson(y))) : value);
}

/** The plan's change for the object the manifest declares (a whole plan has one for each; none would be a no-op). */
function standingOf(plan: Plan, m: Manifest): LiveStanding {
  const address = formatAddress(m.kind, m.name);
  const change = plan.changes.find((c) => c.address === address);
  if (change === undefined) return { inSync: true, action: 'no-op', fields: [] };
  const fields = [
    ...change.fields.map((f) => f.path),
    ...(change.entries ?? []).filter((e) => e.action !== 'no-op').map((e) => `entries[${e.principal.type.toLowerCase()} ${e.principal.name}]`),
  ];
  return { inSync: change.action === 'no-op', action: change.action, fields };
}
