import { dirname, isAbsolute, resolve } from 'node:path';
import { KIND_IO } from '../kinds/io-registry.js';
import type { Change, JsonValue, Payload, SourceRef } from '../plan/model.js';
import { describeSecretFailure, parseSecretRef, readSecretRef } from '../secret.js';
import type { SecretConfinement, SecretFailure, SecretRef } from '../secret.js';

/**
 * A plan (and a plan file) holds secrets as `${env:NAME}` / `${file:PATH}` reference text only.
 * Apply resolves every reference of every change it writes before the first write, and one
 * reference without a value refuses the whole apply: a file-transfer server half configured is an
 * outage. Plan checks the same references, to warn before anyone applies. `${file:}` paths are
 * relative to the folder of the manifest that declares the object, as the user wrote them there,
 * and confined (`SecretConfinement`): a reference that points where a manifest may not is refused
 * like one without a value.
 */

export interface SecretContext {
  /** The process environment (`${env:}`). */
  readonly env: NodeJS.ProcessEnv;
  /** The working folder: `change.source.file` is relative to it. */
  readonly cwd: string;
  /** Where references may point: a plan file made elsewhere, or a link changed since, is refused here too. */
  readonly confinement: SecretConfinement;
}

/** A reference a change sends that has no value now. Holds no value: it may be shown anywhere. */
export interface SecretProblem {
  /** The change that sends it. */
  readonly address: string;
  /** Where the object is declared, when known. */
  readonly source?: SourceRef;
  /** The reference as the manifest writes it. */
  readonly ref: SecretRef;
  readonly failure: SecretFailure;
}

/** The secrets of the changes to write, every one resolved. */
export interface ResolvedSecrets {
  /** What to send for each change that has a payload, by address: references replaced by values. */
  readonly payloads: ReadonlyMap<string, Payload>;
  /** Every value put into a payload, so that messages can be redacted. */
  readonly values: readonly string[];
}

/** All resolved, or every reference that could not be (each once per change). */
export type SecretResolution = { readonly ok: true; readonly resolved: ResolvedSecrets } | { readonly ok: false; readonly problems: readonly SecretProblem[] };

/** Resolve the references of every change's payload; a failure does not stop the others being tried. */
export function resolveChangeSecrets(changes: readonly Change[], ctx: SecretContext): SecretResolution {
  const payloads = new Map<string, Payload>();
  const values: string[] = [];
  const problems: SecretProblem[] = [];
  // One read per variable or file, however many objects send it.
  const reads = new Map<string, ReturnType<typeof readSecretRef>>();
  for (const change of changes) {
    const baseDir = manifestFolder(change, ctx);
    const seen = new Set<string>();
    const payload = mapPayloadRefs(change, (ref) => {
      const at = ref.kind === 'env' ? `env\u0000${ref.name}` : `file\u0000${resolve(baseDir, ref.path)}`;
      let read = reads.get(at);
      if (read === undefined) {
        read = readSecretRef(ref, { env: ctx.env, baseDir, confinement: ctx.confinement });
        reads.set(at, read);
        if (read.ok) values.push(read.secret.reveal());
      }
      if (read.ok) return read.secret.reveal();
      const key = failureKey(read.failure);
      if (!seen.has(key)) problems.push({ address: change.address, ...(change.source ? { source: change.source } : {}), ref, failure: read.failure });
      seen.add(key);
      return undefined;
    });
    if (payload !== undefined) payloads.set(change.address, payload);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, resolved: { payloads, values } };
}

/** The references of these changes that have no value now (none: all of them can be resolved). */
export function findSecretProblems(changes: readonly Change[], ctx: SecretContext): readonly SecretProblem[] {
  const resolution = resolveChangeSecrets(changes, ctx);
  return resolution.ok ? [] : resolution.problems;
}

/**
 * One line per variable or file that has no value, with the objects that need it:
 * `environment variable ACME_SFTP_PASSWORD is not set: needed by Task/Acme upload (manifests/tasks.yaml:12)`.
 */
export function describeSecretProblems(problems: readonly SecretProblem[]): string[] {
  const byFailure = new Map<string, { failure: SecretFailure; users: string[] }>();
  for (const p of problems) {
    const key = failureKey(p.failure);
    const group = byFailure.get(key) ?? { failure: p.failure, users: [] };
    const user = p.source ? `${p.address} (${p.source.file}:${p.source.line})` : p.address;
    if (!group.users.includes(user)) group.users.push(user);
    byFailure.set(key, group);
  }
  return [...byFailure.values()].map((g) => `${describeSecretFailure(g.failure)}: needed by ${g.users.join(', ')}`);
}

/** `text` with every secret replaced by `(sensitive)` (longest first, so one inside another cannot leak). */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) {
    if (s.length > 0) out = out.split(s).join('(sensitive)');
  }
  return out;
}

/** The variable or the file, and why: two objects that need the same missing file make one line. */
function failureKey(f: SecretFailure): string {
  return f.kind === 'env' ? `env\u0000${f.name}\u0000${f.why}` : `file\u0000${f.path}\u0000${f.why}`;
}

/** Where `${file:}` paths of the change start: its manifest's folder (the working folder for an object no manifest declares). */
function manifestFolder(change: Change, ctx: SecretContext): string {
  const source = change.source;
  return source ? dirname(isAbsolute(source.file) ? source.file : resolve(ctx.cwd, source.file)) : ctx.cwd;
}

/** The change's payload with each reference replaced by what `value` gives (undefined: left as written). */
function mapPayloadRefs(change: Change, value: (ref: SecretRef) => string | undefined): Payload | undefined {
  const payload = change.payload;
  if (payload === undefined) return undefined;
  const walk = (v: JsonValue): JsonValue => {
    if (typeof v === 'string') {
      const ref = parseSecretRef(v);
      return ref === undefined ? v : (value(ref) ?? v);
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, JsonValue> = {};
      for (const [k, item] of Object.entries(v)) out[k] = walk(item);
      return out;
    }
    return v;
  };
  return KIND_IO[payload.kind].mapPayloadStrings(payload, walk);
}
