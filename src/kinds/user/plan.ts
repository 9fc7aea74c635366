import type { UserSpec } from '../../manifest/types.js';
import { fieldChange, sha256Of } from '../../resources/common.js';
import type { Action, ChangeReason, DesiredUser, FieldChange, JsonObject, JsonValue, UserPayload } from '../../resources/model.js';
import type { TransferUser, TransferUserDetails } from '../../services/transfer/types.js';
import { PRIVILEGED_USER_PERMISSIONS } from '../../vocabulary.js';
import type { UserPermission } from '../../vocabulary.js';

/**
 * The User kind (transfer-users-groups.md: SimpleUserModel, UserDetailsModel, AddUserModel,
 * UserPatchModel).
 *
 * Identity: the username, case-insensitive. Only the fields a manifest sets are managed: each is
 * compared with the user's details and an update sends those that differ (PATCH is partial).
 * `homeFolderPath` is sent on create only, never compared (the API cannot move a home folder, and
 * the details hold only its id). `password` is write-only: its reference text is sent on create,
 * and to an existing user only with `--rotate-passwords`; it is never read, never compared, and
 * the plan shows it as `(sensitive)`.
 */

/** The managed fields in manifest order: all of UserPatchModel that a manifest may set. */
export const USER_FIELDS = [
  'fullName',
  'email',
  'permission',
  'status',
  'authMethod',
  'notes',
  'emailFormat',
  'receivesNotification',
  'folderQuota',
  'forceChangePassword',
] as const satisfies readonly (keyof UserSpec)[];
export type UserField = (typeof USER_FIELDS)[number];

/** The fields AddUserModel takes besides the username (and `homeFolderPath`, `password`); the others are PATCHed after the create. */
const CREATE_FIELDS: readonly UserField[] = ['fullName', 'email', 'permission', 'forceChangePassword', 'notes'];

/** A user's fields the server reads as empty when absent (so an empty manifest value is no difference); compared with case. */
const TEXT_FIELDS: readonly UserField[] = ['fullName', 'email', 'notes'];

/** Whether `field` is a free text (compared with case), not one of the enumerated words. */
export function isTextField(field: string): boolean {
  return (TEXT_FIELDS as readonly string[]).includes(field);
}

/** The live user: its list record, and its details when they were read (managed users). */
export interface LiveUser {
  readonly user: TransferUser;
  readonly details?: TransferUserDetails;
}

export interface UserOutcome {
  readonly action: Extract<Action, 'create' | 'update' | 'no-op' | 'blocked'>;
  readonly reason?: ChangeReason;
  readonly fields: readonly FieldChange[];
  readonly payload?: UserPayload;
}

/** Whether a permission level administers the server or every file on it. */
export function isPrivileged(permission: string | undefined): boolean {
  return permission !== undefined && PRIVILEGED_USER_PERMISSIONS.some((p) => p.toLowerCase() === permission.toLowerCase());
}

/** The live value of a managed field: details first, then the list record; a text field the server leaves out is ''. */
export function liveValue(live: LiveUser, field: UserField): JsonValue | undefined {
  const record: Record<string, unknown> = { ...live.user, ...live.details };
  const value = record[field];
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return TEXT_FIELDS.includes(field) ? '' : undefined;
}

function sameValue(field: UserField, have: JsonValue | undefined, want: JsonValue): boolean {
  if (have === want) return true;
  // Enumerations as the server spells them, whatever the case (the manifest's are canonical).
  return typeof have === 'string' && typeof want === 'string' && !TEXT_FIELDS.includes(field) && have.toLowerCase() === want.toLowerCase();
}

/** The fields the manifest sets, in order, with their values. */
function declaredFields(spec: UserSpec): [UserField, JsonValue][] {
  return USER_FIELDS.flatMap((field): [UserField, JsonValue][] => {
    const value = spec[field];
    return value === undefined ? [] : [[field, value]];
  });
}

/** The write-only password as a field change: no values, ever. */
function passwordChange(): FieldChange {
  return { path: 'password', sensitive: true };
}

/**
 * The change for a managed user: created when `live` is undefined, else the differing fields.
 * `renamedFrom` is the live username of a user found only under a previous name: the API cannot
 * rename it, so the change is blocked whatever else differs.
 */
export function planUser(desired: DesiredUser, live: LiveUser | undefined, rotatePasswords: boolean, renamedFrom?: string): UserOutcome {
  const spec = desired.manifest.spec;
  const declared = declaredFields(spec);
  if (live === undefined) {
    const create: Record<string, JsonValue> = { username: desired.username };
    const patch: Record<string, JsonValue> = {};
    for (const [field, value] of declared) (CREATE_FIELDS.includes(field) ? create : patch)[field] = value;
    if (spec.homeFolderPath !== undefined) create.homeFolderPath = spec.homeFolderPath;
    if (spec.password !== undefined) create.password = spec.password;
    const fields = declared.map(([field, value]) => fieldChange(field, undefined, value));
    if (spec.homeFolderPath !== undefined) fields.push(fieldChange('homeFolderPath', undefined, spec.homeFolderPath));
    if (spec.password !== undefined) fields.push(passwordChange());
    const payload: UserPayload = { kind: 'User', username: desired.username, create, ...(Object.keys(patch).length > 0 ? { patch } : {}) };
    return { action: 'create', fields, payload };
  }
  if (renamedFrom !== undefined)
    return { action: 'blocked', reason: { code: 'user-rename', from: renamedFrom }, fields: [fieldChange('username', renamedFrom, desired.username)] };
  const fields: FieldChange[] = [];
  const patch: Record<string, JsonValue> = {};
  for (const [field, want] of declared) {
    const have = liveValue(live, field);
    if (sameValue(field, have, want)) continue;
    fields.push(fieldChange(field, have, want));
    patch[field] = want;
  }
  if (rotatePasswords && spec.password !== undefined) {
    fields.push(passwordChange());
    patch.password = spec.password;
  }
  if (fields.length === 0) return { action: 'no-op', fields: [] };
  return { action: 'update', fields, payload: { kind: 'User', username: desired.username, patch } };
}

/** The user's permission before and after a change, for the access report (undefined: the plan leaves it alone). */
export function permissionBasis(spec: UserSpec, live: LiveUser | undefined): { before: string | undefined; after: UserPermission } | undefined {
  if (spec.permission === undefined) return undefined;
  const before = live === undefined ? undefined : liveValue(live, 'permission');
  return { before: typeof before === 'string' ? before : undefined, after: spec.permission };
}

/**
 * sha256 of what the plan compared: the list record's fields, and with `details` the account's
 * settings too. Sign-on and password stamps and the files' total size are left out: they move
 * without anyone changing the account. Apply's stale check reads the same way (details for an
 * update, the list for a delete).
 */
export function fingerprintUser(user: TransferUser, details?: TransferUserDetails): string {
  const pick = (record: Record<string, unknown>, keys: readonly string[]): JsonObject =>
    Object.fromEntries(keys.map((k) => [k, toJsonValue(record[k])])) as JsonObject;
  const base = pick(user, ['id', 'username', 'fullName', 'email', 'permission', 'status']);
  return sha256Of(details ? { ...base, ...pick(details, [...USER_FIELDS, 'homeFolderID']) } : base);
}

function toJsonValue(value: unknown): JsonValue {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : null;
}
