import { dirname, isAbsolute, resolve } from 'node:path';
import type { Change, JsonObject, JsonValue, Payload } from '../plan/model.js';
import { parseSecretRef, resolveSecretRef } from '../secret.js';

/**
 * Secrets are resolved when a change is about to be sent, never earlier: a plan (and a plan file)
 * holds `${env:NAME}` / `${file:PATH}` reference text only. `${file:}` paths are relative to the
 * folder of the manifest that declares the object, as the user wrote them there.
 */

export interface SecretContext {
  /** The process environment (`${env:}`). */
  readonly env: NodeJS.ProcessEnv;
  /** The working folder: `change.source.file` is relative to it. */
  readonly cwd: string;
}

export interface ResolvedPayload {
  readonly payload: Payload;
  /** Every secret value put into the payload, so that messages can be redacted. */
  readonly secrets: readonly string[];
}

/**
 * The change's payload with every reference replaced by its value. A missing variable or an
 * unreadable file throws a `ConfigError` that names it and the object (never an empty value).
 */
export function resolvePayloadSecrets(change: Change, ctx: SecretContext): ResolvedPayload | undefined {
  const payload = change.payload;
  if (payload === undefined) return undefined;
  const secrets: string[] = [];
  const source = change.source;
  const baseDir = source ? dirname(isAbsolute(source.file) ? source.file : resolve(ctx.cwd, source.file)) : ctx.cwd;
  const where = source ? `${change.address} (${source.file}:${source.line})` : change.address;
  const walk = (value: JsonValue): JsonValue => {
    if (typeof value === 'string') {
      const ref = parseSecretRef(value);
      if (ref === undefined) return value;
      const secret = resolveSecretRef(ref, { env: ctx.env, baseDir, where }).reveal();
      secrets.push(secret);
      return secret;
    }
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === 'object') {
      const out: Record<string, JsonValue> = {};
      for (const [k, v] of Object.entries(value)) out[k] = walk(v);
      return out;
    }
    return value;
  };
  switch (payload.kind) {
    case 'Task':
      return { payload: { kind: 'Task', body: walk(payload.body) as JsonObject }, secrets };
    case 'ResourceGroupAcl':
    case 'FolderPermissions':
      // Permission flags and principal ids: nothing in them can be a reference.
      return { payload, secrets };
    default: {
      const never: never = payload;
      throw new Error(`unknown payload ${String(never)}`);
    }
  }
}

/** `text` with every secret replaced by `(sensitive)` (longest first, so one inside another cannot leak). */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) {
    if (s.length > 0) out = out.split(s).join('(sensitive)');
  }
  return out;
}
