import type { Change, EntryChange, FieldChange, Payload, Plan } from '../plan/model.js';

/**
 * The plan as JSON: the plan-file format. Keys come in the order the model declares them, whatever
 * order the object was built in, so the same plan always gives the same bytes (a plan file diffs
 * cleanly and hashes stably). Keys the model does not know are kept, after the known ones; values
 * the user wrote (task bodies, field values) keep their own order.
 */
export function renderPlanJson(plan: Plan): string {
  return `${JSON.stringify(orderPlanKeys(plan), null, 2)}\n`;
}

type Obj = Readonly<Record<string, unknown>>;

const PLAN_KEYS = ['formatVersion', 'toolVersion', 'createdAt', 'environment', 'servers', 'manifestDigest', 'targets', 'errored', 'applyable', 'changes', 'summary'];
const SERVICE_KEYS = ['automation', 'transfer'];
const SERVER_KEYS = ['url', 'version', 'username'];
const CHANGE_KEYS = ['address', 'kind', 'name', 'service', 'action', 'reason', 'previousName', 'liveId', 'fingerprint', 'wave', 'needs', 'fields', 'entries', 'source', 'payload'];
const FIELD_KEYS = ['path', 'before', 'after', 'sensitive', 'forcesReplace'];
const ENTRY_KEYS = ['principal', 'action', 'reason', 'before', 'after'];
const PRINCIPAL_KEYS = ['type', 'name'];
const ENTRY_PERMISSION_KEYS = ['permissions', 'sharePermissions'];
const SOURCE_KEYS = ['file', 'line', 'col'];
const SUMMARY_KEYS = ['create', 'update', 'replace', 'delete', 'no-op', 'blocked'];
const TASK_PAYLOAD_KEYS = ['kind', 'body'];
const ACL_PAYLOAD_KEYS = ['kind', 'resourceGroup', 'userGroup', 'permissions'];
const FOLDER_PAYLOAD_KEYS = ['kind', 'path', 'create', 'rename', 'set', 'remove'];
const FOLDER_CREATE_KEYS = ['parentPath', 'name', 'inheritPermissions'];
const FOLDER_RENAME_KEYS = ['from', 'name'];
const FOLDER_SET_KEYS = ['type', 'id', 'name', 'permissions'];
const FOLDER_REMOVE_KEYS = ['type', 'id', 'name'];

/** A copy of the plan with its keys in model order (for writers that add to it, e.g. a checksum). */
export function orderPlanKeys(plan: Plan): Plan {
  return orderPlanObject(plan) as unknown as Plan;
}

function orderPlanObject(plan: Plan): Obj {
  return ordered(plan, PLAN_KEYS, {
    servers: (s) => ordered(s as Obj, SERVICE_KEYS, Object.fromEntries(SERVICE_KEYS.map((k) => [k, (v: unknown) => ordered(v as Obj, SERVER_KEYS)]))),
    changes: (cs) => (cs as readonly Change[]).map(orderChange),
    summary: (s) => ordered(s as Obj, SUMMARY_KEYS),
  });
}

function orderChange(change: Change): Obj {
  return ordered(change, CHANGE_KEYS, {
    fields: (fs) => (fs as readonly FieldChange[]).map((f) => ordered(f, FIELD_KEYS)),
    entries: (es) => (es as readonly EntryChange[]).map(orderEntry),
    source: (s) => ordered(s as Obj, SOURCE_KEYS),
    payload: (p) => orderPayload(p as Payload),
  });
}

function orderEntry(entry: EntryChange): Obj {
  const perms = (p: unknown) => ordered(p as Obj, ENTRY_PERMISSION_KEYS);
  return ordered(entry, ENTRY_KEYS, { principal: (p) => ordered(p as Obj, PRINCIPAL_KEYS), before: perms, after: perms });
}

function orderPayload(payload: Payload): Obj {
  switch (payload.kind) {
    case 'Task':
      return ordered(payload, TASK_PAYLOAD_KEYS);
    case 'ResourceGroupAcl':
      return ordered(payload, ACL_PAYLOAD_KEYS);
    case 'FolderPermissions':
      return ordered(payload, FOLDER_PAYLOAD_KEYS, {
        create: (c) => ordered(c as Obj, FOLDER_CREATE_KEYS),
        rename: (r) => ordered(r as Obj, FOLDER_RENAME_KEYS),
        set: (s) => (s as readonly Obj[]).map((e) => ordered(e, FOLDER_SET_KEYS)),
        remove: (r) => (r as readonly Obj[]).map((e) => ordered(e, FOLDER_REMOVE_KEYS)),
      });
    default: {
      const never: never = payload;
      return never;
    }
  }
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
