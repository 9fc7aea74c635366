import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { writeFileAtomicSync } from '../atomic-file.js';
import { getValidatorByFile } from '../manifest/schemas.js';
import { MftopsError, systemError } from '../errors.js';
import type { KeyOrder } from '../kinds/kind.js';
import { kindOf } from '../kinds/registry.js';
import type { Change, EntryChange, FieldChange, Payload, Plan } from '../plan/model.js';
import { checkPlan, ERRORED_PLAN } from '../plan/plan-check.js';

/**
 * The plan file (`mftops plan --out`), what `mftops apply FILE` reads: internal to mftops (apply
 * needs the payloads and fingerprints), described by `schemas/plan.schema.json`. Scripts read
 * the `--format json` view instead (src/render/plan-json.ts). This module is the file's edge (it
 * reads, writes and checks it against the schema); the plan itself is pure data in src/plan.
 */
export interface PlanFile {
  /** Bumped on any incompatible change; apply refuses other versions (version 1 with a hint to plan again). */
  readonly formatVersion: typeof PLAN_FILE_FORMAT;
  /**
   * Absolute path of the configuration file the plan was made with: `apply FILE` opens it (and
   * the plan's `environment`), so it needs no `--config`/`--env`. Absent in files of mftops
   * before it was recorded (apply then takes `--config` as before).
   */
  readonly configFile?: string;
  /** The plan, its keys in model order (`orderPlanKeys`). Never `errored`. */
  readonly plan: Plan;
  /** `sha256:` of the rest of the file as written, so a plan edited by hand (or cut short) is refused. */
  readonly checksum: string;
}

/**
 * Format 1 (mftops before reason codes, markers and the carried order) held the plan's fields at
 * the top; format 2 did not record the names each change resolved (`Change.resolved`), so apply
 * could not tell a renamed principal: both are refused with a hint to plan again.
 */
export const PLAN_FILE_FORMAT = 3;

/** What a plan file holds besides the plan: how it was made. */
export interface PlanFileContext {
  /** Absolute path of the configuration file. */
  readonly configFile?: string;
}

/** A plan read back from its file, with what the file recorded of how it was made. */
export interface SavedPlan extends PlanFileContext {
  readonly plan: Plan;
}

/**
 * The plan file's text: `PlanFile` as two-space JSON. Keys come in the order the model declares
 * them, so the same plan always gives the same bytes (it diffs cleanly and hashes stably).
 */
export function serializePlan(plan: Plan, context: PlanFileContext = {}): string {
  if (plan.errored) throw new PlanFileError(`cannot save the plan: ${ERRORED_PLAN}`);
  const body: Omit<PlanFile, 'checksum'> = {
    formatVersion: PLAN_FILE_FORMAT,
    ...(context.configFile !== undefined ? { configFile: context.configFile } : {}),
    plan: orderPlanKeys(plan),
  };
  const file: PlanFile = { ...body, checksum: checksumOf(JSON.stringify(body, null, 2)) };
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** Written atomically, so a reader never sees half a plan. */
export function writePlanFile(path: string, plan: Plan, context: PlanFileContext = {}): void {
  try {
    writeFileAtomicSync(path, serializePlan(plan, context), { mode: 0o644 });
  } catch (err) {
    throw systemError(`cannot write plan file ${path}`, err);
  }
}

export class PlanFileError extends MftopsError {}

/**
 * Read a plan file and check, in order: it is JSON, it is a plan of a format this version reads,
 * it is intact (checksum), it is not errored, it matches the schema, and apply can follow it
 * (`checkPlan`: flags and execution order). Each failure says which in one line.
 */
export function readPlanFile(path: string): Plan {
  return readSavedPlan(path).plan;
}

/** `readPlanFile`, with what the file recorded besides the plan (the configuration file). */
export function readSavedPlan(path: string): SavedPlan {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new PlanFileError(code === 'ENOENT' ? `plan file ${path} not found` : systemError(`cannot read plan file ${path}`, err).message);
  }
  return parseSavedPlan(text, path);
}

export function parsePlan(text: string, path: string): Plan {
  return parseSavedPlan(text, path).plan;
}

export function parseSavedPlan(text: string, path: string): SavedPlan {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new PlanFileError(`${path} is not a plan file: it is not JSON (was it written by mftops plan --out?)`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data) || !('formatVersion' in data)) {
    throw new PlanFileError(`${path} is not a plan file: no formatVersion`);
  }
  const { checksum, ...rest } = data as Record<string, unknown>;
  const version = rest['formatVersion'];
  if (version !== 1 && !('plan' in rest) && 'changes' in rest) {
    throw new PlanFileError(
      `${path} is not a plan file but the JSON view of a plan (mftops plan --format json), which cannot be applied: save the plan with mftops plan --out FILE`,
    );
  }
  if (version !== 1 && checksum === undefined) {
    throw new PlanFileError(`${path} is not a plan file: it has no checksum (only mftops plan --out writes plan files)`);
  }
  if (version !== PLAN_FILE_FORMAT) {
    const made = version === 1 || version === 2 ? 'an older mftops' : 'another version of mftops';
    throw new PlanFileError(
      `${path} is a plan file of format ${JSON.stringify(version)}, made by ${made}; this mftops reads format ${PLAN_FILE_FORMAT} only: make the plan again with mftops plan --out`,
    );
  }
  if (typeof checksum !== 'string' || checksum !== checksumOf(JSON.stringify(rest, null, 2))) {
    throw new PlanFileError(`${path} was changed after mftops wrote it (checksum mismatch): make the plan again instead of editing it`);
  }
  // Before the schema (which says a file is never errored), so the refusal says why.
  const inner = rest['plan'];
  if (typeof inner === 'object' && inner !== null && (inner as Record<string, unknown>)['errored'] === true)
    throw new PlanFileError(`${path} cannot be applied: ${ERRORED_PLAN}`);
  const validatePlanShape = getValidatorByFile('plan.schema.json');
  if (!validatePlanShape(data)) {
    const e = validatePlanShape.errors?.[0];
    throw new PlanFileError(`${path} is not a valid plan file: ${e ? `${e.instancePath || '/'} ${e.message ?? 'is invalid'}` : 'schema mismatch'}`);
  }
  const { plan, configFile } = rest as unknown as Omit<PlanFile, 'checksum'>;
  const problems = checkPlan(plan);
  if (problems.length > 0) throw new PlanFileError(`${path} cannot be applied: ${problems[0]}`);
  return { plan, ...(configFile !== undefined ? { configFile } : {}) };
}

/** How every plan file mftops writes begins, whatever its version. */
const PLAN_FILE_START = /^\uFEFF?\s*\{\s*"formatVersion"\s*:/;

/**
 * Whether `path` holds a plan file, by its content, whatever its name: a JSON object whose first
 * member is `formatVersion`, as every plan file begins (`{\n  "formatVersion": 3,`). Only the
 * start is read, so a plan file cut short, or of another format, still counts (and `readPlanFile`
 * then says what is wrong with it). A YAML manifest never begins so; a folder, or a path that
 * cannot be read, is not a plan file.
 */
export function holdsPlanFile(path: string): boolean {
  let fd: number | undefined;
  try {
    if (!statSync(path).isFile()) return false;
    fd = openSync(path, 'r');
    const head = Buffer.alloc(256);
    const read = readSync(fd, head, 0, head.length, 0);
    return PLAN_FILE_START.test(head.subarray(0, read).toString('utf8'));
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function checksumOf(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

// ------------------------------------------------------------------------------------ key order

type Obj = Readonly<Record<string, unknown>>;

const PLAN_KEYS = [
  'toolVersion',
  'createdAt',
  'environment',
  'servers',
  'manifestDigest',
  'variables',
  'targets',
  'pruneOff',
  'errored',
  'applyable',
  'changes',
  'summary',
  'access',
  'transferChecks',
  'policy',
];
const POLICY_KEYS = ['policies', 'violations'];
const POLICY_VIOLATION_KEYS = ['policy', 'severity', 'outcome', 'message', 'address', 'source', 'expressionSource'];
const ACCESS_KEYS = ['changes', 'membersUnknown', 'userGroupsUnknown', 'membershipScope'];
const MEMBERSHIP_SCOPE_KEYS = ['groups', 'foldersRead'];
const ACCESS_CHANGE_KEYS = ['address', 'who', 'service', 'target', 'gained', 'lost', 'via', 'removed', 'flagged', 'memberships'];
const TRANSFER_CHECKS_KEYS = ['checked', 'problems', 'rightsUnchecked', 'groupsUncounted'];
const TRANSFER_PROBLEM_KEYS = ['problem', 'address', 'step', 'stepKind', 'host', 'path', 'account', 'missing', 'source'];
const PRUNE_OFF_KEYS = ['reason', 'kinds'];
const SERVICE_KEYS = ['automation', 'transfer'];
const SERVER_KEYS = ['url', 'version', 'username'];
const CHANGE_KEYS = [
  'address',
  'kind',
  'name',
  'service',
  'action',
  'reason',
  'previousName',
  'liveId',
  'fingerprint',
  'resolved',
  'wave',
  'needs',
  'fields',
  'entries',
  'removes',
  'source',
  'payload',
];
const FIELD_KEYS = ['path', 'before', 'after', 'sensitive', 'forcesReplace', 'words', 'innerWords', 'origin'];
const FIELD_WORDS_KEYS = ['form', 'before', 'after'];
const INNER_WORDS_SIDES = ['before', 'after'];
const INNER_WORDS_KEYS = ['path', 'form', 'text'];
const ENTRY_KEYS = ['principal', 'action', 'reason', 'before', 'after', 'origin'];
const PRINCIPAL_KEYS = ['type', 'name'];
const ENTRY_PERMISSION_KEYS = ['permissions', 'sharePermissions'];
const SOURCE_KEYS = ['file', 'line', 'col'];
const RESOLVED_KEYS = ['kind', 'name', 'id'];
const SUMMARY_KEYS = ['create', 'update', 'replace', 'delete', 'no-op', 'blocked'];

/**
 * A copy of the plan with its keys in the order the model declares them, whatever order the
 * object was built in. Keys the model does not know are kept, after the known ones; values the
 * user wrote (task bodies, field values) keep their own order.
 */
export function orderPlanKeys(plan: Plan): Plan {
  return orderPlanObject(plan) as unknown as Plan;
}

function orderPlanObject(plan: Plan): Obj {
  return ordered(plan, PLAN_KEYS, {
    servers: (s) => ordered(s as Obj, SERVICE_KEYS, Object.fromEntries(SERVICE_KEYS.map((k) => [k, (v: unknown) => ordered(v as Obj, SERVER_KEYS)]))),
    pruneOff: (p) => ordered(p as Obj, PRUNE_OFF_KEYS),
    changes: (cs) => (cs as readonly Change[]).map(orderChange),
    summary: (s) => ordered(s as Obj, SUMMARY_KEYS),
    access: (a) =>
      ordered(a as Obj, ACCESS_KEYS, {
        changes: (cs) =>
          (cs as readonly Obj[]).map((c) =>
            ordered(c, ACCESS_CHANGE_KEYS, {
              who: (p) => ordered(p as Obj, PRINCIPAL_KEYS),
              via: (vs) => (vs as readonly Obj[]).map((v) => ordered(v, PRINCIPAL_KEYS)),
            }),
          ),
        membershipScope: (m) => ordered(m as Obj, MEMBERSHIP_SCOPE_KEYS),
      }),
    transferChecks: (t) =>
      ordered(t as Obj, TRANSFER_CHECKS_KEYS, {
        problems: (ps) => (ps as readonly Obj[]).map((p) => ordered(p, TRANSFER_PROBLEM_KEYS, { source: (x) => ordered(x as Obj, SOURCE_KEYS) })),
      }),
    policy: (r) =>
      ordered(r as Obj, POLICY_KEYS, {
        violations: (vs) =>
          (vs as readonly Obj[]).map((v) =>
            ordered(v, POLICY_VIOLATION_KEYS, { source: (x) => ordered(x as Obj, SOURCE_KEYS), expressionSource: (x) => ordered(x as Obj, SOURCE_KEYS) }),
          ),
      }),
  });
}

function orderChange(change: Change): Obj {
  return ordered(change, CHANGE_KEYS, {
    fields: (fs) => (fs as readonly FieldChange[]).map(orderField),
    entries: (es) => (es as readonly EntryChange[]).map(orderEntry),
    source: (s) => ordered(s as Obj, SOURCE_KEYS),
    resolved: (rs) => (rs as readonly Obj[]).map((r) => ordered(r, RESOLVED_KEYS)),
    payload: (p) => orderPayload(p as Payload),
  });
}

function orderField(field: FieldChange): Obj {
  const inner = (list: unknown) => (list as readonly Obj[]).map((w) => ordered(w, INNER_WORDS_KEYS));
  return ordered(field, FIELD_KEYS, {
    words: (w) => ordered(w as Obj, FIELD_WORDS_KEYS),
    origin: (s) => ordered(s as Obj, SOURCE_KEYS),
    innerWords: (w) => ordered(w as Obj, INNER_WORDS_SIDES, { before: inner, after: inner }),
  });
}

function orderEntry(entry: EntryChange): Obj {
  const perms = (p: unknown) => ordered(p as Obj, ENTRY_PERMISSION_KEYS);
  return ordered(entry, ENTRY_KEYS, {
    principal: (p) => ordered(p as Obj, PRINCIPAL_KEYS),
    before: perms,
    after: perms,
    origin: (s) => ordered(s as Obj, SOURCE_KEYS),
  });
}

/** A payload in its kind's key order (`KindDefinition.payloadKeys`). */
function orderPayload(payload: Payload): Obj {
  return orderedBy(payload, kindOf(payload.kind).payloadKeys);
}

/** `data` (an object, or a list of them) ordered by `order`, its inner values too. */
function orderedBy(data: unknown, order: KeyOrder): Obj {
  if (Array.isArray(data)) return data.map((item: unknown) => orderedBy(item, order)) as unknown as Obj;
  const inner = Object.fromEntries(Object.entries(order.inner ?? {}).map(([key, keys]) => [key, (v: unknown) => orderedBy(v, keys)]));
  return ordered(data as object, order.keys, inner);
}

/** `value` with `keys` first, in that order, then any others; undefined members dropped as JSON does. */
function ordered(data: object, keys: readonly string[], inner: Readonly<Record<string, (v: unknown) => unknown>> = {}): Obj {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return data as unknown as Obj;
  const value = data as Obj;
  const out: Record<string, unknown> = {};
  const put = (k: string) => {
    const v = value[k];
    if (v === undefined) return;
    const f = inner[k];
    out[k] = f === undefined || v === null ? v : f(v);
  };
  for (const k of keys) if (Object.hasOwn(value, k)) put(k);
  for (const k of Object.keys(value)) if (!keys.includes(k)) put(k);
  return out;
}
