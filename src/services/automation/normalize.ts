import { isRecord } from '../error-body.js';
import type { Host, TaskParameters } from './types.js';

/**
 * A host from the wire: wrapped `{"SSHFTP": {...}}` (lists, and some single reads) or flat. The
 * type name is kept as sent (`siLock` and `xferLock` both pass). A flat host carries its type in
 * `Type`/`HostType`/`type` if at all; else `hint` (the `type=` asked for) or `unknown`.
 */
export function unwrapHost(raw: unknown, hint?: string): Host | undefined {
  if (!isRecord(raw)) return undefined;
  const keys = Object.keys(raw);
  if (keys.length === 1) {
    const type = keys[0]!;
    const inner = raw[type];
    if (isRecord(inner)) return withType(inner, type);
  }
  const declared = [raw.type, raw.Type, raw.HostType].find((t): t is string => typeof t === 'string' && t !== '');
  return withType(raw, declared ?? hint ?? 'unknown');
}

function withType(host: Record<string, unknown>, type: string): Host {
  return { ...host, ID: idString(host.ID), Name: typeof host.Name === 'string' ? host.Name : '', type };
}

function idString(id: unknown): string {
  return typeof id === 'string' ? id : typeof id === 'number' ? String(id) : '';
}

/**
 * Parameters in map form. The variant `{Parameter: [{Name, value}]}` (or a single object instead
 * of the array) becomes `{Name: {value}}`; a map that merely has a parameter called `Parameter`
 * is left alone.
 */
export function normalizeParameters(p: unknown): unknown {
  if (!isRecord(p) || !('Parameter' in p)) return p;
  const raw = p.Parameter;
  const list = Array.isArray(raw) ? raw : [raw];
  if (!list.every((e) => isRecord(e) && typeof e.Name === 'string')) return p;
  const out: Record<string, Record<string, unknown>> = {};
  for (const e of list as Record<string, unknown>[]) {
    const { Name, ...rest } = e;
    out[Name as string] = rest;
  }
  return out satisfies TaskParameters;
}

/** A task (or any part of one) with every `Parameters`, at any depth (steps, For, If), in map form. */
export function normalizeTaskTree(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(normalizeTaskTree);
  if (!isRecord(x)) return x;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(x)) out[k] = k === 'Parameters' ? normalizeParameters(v) : normalizeTaskTree(v);
  return out;
}

/**
 * {@link normalizeTaskTree} in place, for a response body the client has just parsed and owns:
 * copying every task of a 10,000-task list cost as much as parsing it, and only the rare
 * list-form `Parameters` change.
 */
export function normalizeParsedTaskTree(x: unknown): unknown {
  if (Array.isArray(x)) {
    for (const item of x) normalizeParsedTaskTree(item);
  } else if (isRecord(x)) {
    for (const k in x) {
      if (!Object.hasOwn(x, k)) continue;
      if (k === 'Parameters') x[k] = normalizeParameters(x[k]);
      else normalizeParsedTaskTree(x[k]);
    }
  }
  return x;
}

const ON = /^(enabled|enable|running|started|start|on|active|true|1)$/i;
const OFF = /^(disabled|disable|stopped|stop|off|inactive|false|0)$/i;

/** The scheduler status body (unknown shape): `{enabled|Enabled|status}` or a bare value. */
export function readSchedulerStatus(body: unknown): boolean | undefined {
  const fromValue = (v: unknown): boolean | undefined => {
    if (typeof v === 'boolean') return v;
    if (v === 0 || v === 1) return v === 1;
    if (typeof v === 'string') return ON.test(v.trim()) ? true : OFF.test(v.trim()) ? false : undefined;
    return undefined;
  };
  if (!isRecord(body)) return fromValue(body);
  for (const key of ['enabled', 'Enabled', 'status', 'Status']) {
    const v = fromValue(body[key]);
    if (v !== undefined) return v;
  }
  return undefined;
}
