import type { TokenDialect, TokenErrorCode } from './auth.js';
import { checkBearer, handleTokenGrant, revokeToken } from './auth.js';
import type { ApiRequest, ApiResponse, FieldError, Params, Route } from './http.js';
import { emptyResponse, isFormRequest, jsonResponse, matchRoute } from './http.js';
import type { Json, JsonObject } from './json.js';
import { isJsonObject, showRejected } from './json.js';
import type { TransferListQuery } from './paging.js';
import { churnAcl } from './list-churn.js';
import { compareText, matchesGlob, transferPage } from './paging.js';
import type { FolderAclEntry, FolderPermissions, TransferFolder, TransferState, TransferUser } from './state.js';
import { FOLDER_PERMISSION_KEYS, SHARE_PERMISSION_KEYS, nowMs } from './state.js';
import type { Ctx, TransferRuntime } from './transfer-context.js';
import { err, folderDetailDefaults, invalid, isFolderAdmin, jsonBody, listResponse } from './transfer-context.js';
import { USER_ROUTES, canSignOn } from './transfer-users.js';
import {
  decodeEntryType,
  decodePermission,
  encodeEntry,
  encodeFolderPath,
  encodeTransferId,
  folderPathMatches,
  permissionForms,
  shownEntryName,
} from './transfer-wire.js';
import { NAMED_SETS } from './variants.js';

export type { TransferRuntime } from './transfer-context.js';
export { folderDetailDefaults } from './transfer-context.js';

/** `error_code` of token errors (newer transfer releases add it; values are the emulator's). */
const TOKEN_ERROR_CODES: Readonly<Record<TokenErrorCode, number>> = { invalid_request: 2000, invalid_grant: 2001, unsupported_grant_type: 2002 };

function tokenError(code: TokenErrorCode, description: string): ApiResponse {
  return jsonResponse(400, { error: code, error_description: description, error_code: TOKEN_ERROR_CODES[code] });
}

function tokenDialect(rt: TransferRuntime): TokenDialect {
  const t = rt.state.transfer;
  return {
    tokens: t.tokens,
    lifetimes: rt.lifetimes,
    now: () => nowMs(rt.state),
    verifyPassword: (username, password) => {
      const user = t.users.find((u) => u.username.toLowerCase() === username.toLowerCase() && u.password === password);
      if (!user || !canSignOn(user)) return undefined;
      user.lastLoginStamp = new Date(nowMs(rt.state)).toISOString();
      return user.username;
    },
    userExists: (username) => t.users.some((u) => u.username === username && canSignOn(u)),
    tokenError,
    variants: rt.state.variants,
  };
}

/** Entry point for everything below `/api/v1` of the transfer service. */
export function handleTransfer(req: ApiRequest, rt: TransferRuntime): ApiResponse {
  const t = rt.state.transfer;
  if (req.path === '/token') {
    if (req.method === 'GET')
      return jsonResponse(200, { message: 'The REST API is running. POST form-urlencoded credentials to this URL for a token.', apiVersion: 'v1' });
    if (req.method !== 'POST') return err(405, `${req.method} is not supported on /token`);
    return handleTokenGrant(req, tokenDialect(rt));
  }
  const bearer = checkBearer(req, t.tokens, nowMs(rt.state));
  if (req.path === '/token/revoke') {
    if (req.method !== 'POST') return err(405, `${req.method} is not supported on /token/revoke`);
    if (!bearer.ok) return err(401, bearer.detail);
    const form = isFormRequest(req) ? new URLSearchParams(req.body.toString('utf8')) : new URLSearchParams();
    revokeToken(t.tokens, form.get('token') || bearer.token);
    return jsonResponse(200, { message: 'The token has been revoked.' });
  }
  if (!bearer.ok) return err(401, bearer.detail);
  const caller = t.users.find((u) => u.username === bearer.username);
  if (!caller) return err(401, 'the user of this token no longer exists');
  if (!canSignOn(caller)) return err(401, `the account ${caller.username} is ${caller.status}: it cannot use the API`);
  const match = matchRoute(ROUTES, req.method, req.path);
  switch (match.kind) {
    case 'not-found':
      return err(404, `no resource at ${req.path}`);
    case 'method-not-allowed':
      return err(405, `${req.method} is not supported on ${req.path}`);
    case 'found':
      return match.route.handle({ req, rt, t, v: rt.state.variants, caller }, match.params);
    default: {
      const never: never = match;
      throw new Error(`unknown match ${JSON.stringify(never)}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

function emptyPermissions(value = false): FolderPermissions {
  const perms = Object.fromEntries(FOLDER_PERMISSION_KEYS.map((k) => [k, value])) as Record<(typeof FOLDER_PERMISSION_KEYS)[number], boolean>;
  const share = Object.fromEntries(SHARE_PERMISSION_KEYS.map((k) => [k, value])) as FolderPermissions['sharePermissions'];
  return { ...perms, sharePermissions: share };
}

/** The caller's permissions on a folder: the union of their user entry and their groups' entries. */
function effectivePermissions(t: TransferState, user: TransferUser, folder: TransferFolder): FolderPermissions {
  if (isFolderAdmin(user)) return emptyPermissions(true);
  const out = emptyPermissions();
  const groupIds = new Set(t.groups.filter((g) => g.members.includes(user.id)).map((g) => String(g.id)));
  for (const e of folder.acl) {
    if (!((e.type === 'User' && e.id === user.id) || (e.type === 'Group' && groupIds.has(e.id)))) continue;
    for (const k of FOLDER_PERMISSION_KEYS) if (e.permissions[k]) out[k] = true;
    for (const k of SHARE_PERMISSION_KEYS) if (e.permissions.sharePermissions[k]) out.sharePermissions[k] = true;
  }
  return out;
}

function canSee(c: Ctx, f: TransferFolder): boolean {
  // A folder administrator's permissions are all true (effectivePermissions): no per-folder work on each page of the folder list.
  return isFolderAdmin(c.caller) || effectivePermissions(c.t, c.caller, f).listFiles;
}

/** FolderDetailsModel of a folder for this caller. */
function renderFolder(c: Ctx, f: TransferFolder): JsonObject {
  return {
    id: encodeTransferId(f.id, c.v),
    name: f.name,
    path: encodeFolderPath(f.path, c.v),
    parentId: encodeTransferId(f.parentId, c.v),
    folderType: f.folderType,
    ...f.details,
    owner: f.owner,
    parentInheritRights: f.parentInheritRights,
    permission: effectivePermissions(c.t, c.caller, f),
  };
}

/** The folder named by a path id, if the caller may see it; anything else is the 403 of gaps.md. */
function visibleFolder(c: Ctx, raw: string): TransferFolder | undefined {
  if (!/^[0-9]+$/.test(raw)) return undefined;
  const f = folderWithId(c.t.folders, Number(raw));
  return f && canSee(c, f) ? f : undefined;
}

/**
 * Each folder list's positions by id, for the per-folder reads (a plan of 100,000 objects reads
 * 15,000 folders' ACLs; a scan of the list per read made the emulator quadratic, issue 29). Built
 * only for a list whose ids are unique, rebuilt when its length changes; a hit is used only while
 * the folder at that position still has that id, and an id not indexed is looked for by a scan: the
 * answer is what `find` gives, unless a test changes a folder's id in place to an earlier folder's.
 */
const folderPositions = new WeakMap<object, { readonly length: number; readonly byId: ReadonlyMap<number, number> | undefined }>();

function folderWithId(folders: readonly TransferFolder[], id: number): TransferFolder | undefined {
  let index = folderPositions.get(folders);
  if (index === undefined || index.length !== folders.length) {
    const byId = new Map<number, number>();
    folders.forEach((f, i) => byId.set(f.id, byId.has(f.id) ? -1 : i));
    index = { length: folders.length, byId: [...byId.values()].includes(-1) ? undefined : byId };
    folderPositions.set(folders, index);
  }
  const at = index.byId?.get(id);
  const hit = at === undefined ? undefined : folders[at];
  if (hit !== undefined && hit.id === id) return hit;
  return folders.find((x) => x.id === id);
}

function folderForbidden(id: string): ApiResponse {
  return err(403, `folder ${id} does not exist or you may not access it`);
}

// ---------------------------------------------------------------------------------------------
// Folders

const FOLDER_SORTS = ['Name', 'Type', 'Path'] as const;

function folderSortValue(f: TransferFolder, field: string): string {
  return field === 'Type' ? f.folderType : field === 'Path' ? f.path : f.name;
}

function listFolders(c: Ctx): ApiResponse {
  const path = c.req.query.get('path');
  const name = c.req.query.get('name');
  const folders = c.t.folders.filter(
    (f) => canSee(c, f) && (path === null || folderPathMatches(f.path, path, c.v)) && (name === null || matchesGlob(f.name, name)),
  );
  return listResponse(c, folders, FOLDER_SORTS, NAMED_SETS[c.rt.state.profile].details.folderSort, folderSortValue, (f) => renderFolder(c, f));
}

function getFolder(c: Ctx, p: Params): ApiResponse {
  const f = visibleFolder(c, p.id!);
  return f ? jsonResponse(200, renderFolder(c, f)) : folderForbidden(p.id!);
}

function listSubfolders(c: Ctx, p: Params): ApiResponse {
  const parent = visibleFolder(c, p.id!);
  if (!parent) return folderForbidden(p.id!);
  const name = c.req.query.get('name');
  const kids = c.t.folders.filter((f) => f.parentId === parent.id && f.id !== parent.id && canSee(c, f) && (name === null || matchesGlob(f.name, name)));
  return listResponse(c, kids, FOLDER_SORTS, 'Name', folderSortValue, (f) => renderFolder(c, f));
}

const INHERIT = ['None', 'CopyOnly', 'Always'] as const;

function createSubfolder(c: Ctx, p: Params): ApiResponse {
  const parent = visibleFolder(c, p.id!);
  if (!parent) return folderForbidden(p.id!);
  if (!effectivePermissions(c.t, c.caller, parent).addDeleteSubfolders) return err(403, `you may not add subfolders to ${parent.path}`);
  const body = jsonBody(c);
  if (!body.ok) return body.response;
  const b = body.value;
  if (!isJsonObject(b)) return invalid([{ field: '', rejected: showRejected(b), message: 'the body must be {name, inheritPermissions}' }]);
  const errors: FieldError[] = [];
  for (const k of Object.keys(b))
    if (k !== 'name' && k !== 'inheritPermissions')
      errors.push({ field: k, rejected: showRejected(b[k]), message: 'is not a field of AddFolderModel (name, inheritPermissions)' });
  const name = b.name;
  if (typeof name !== 'string' || name.trim() === '' || /[/\\]/.test(name))
    errors.push({ field: 'name', rejected: showRejected(name), message: 'name is required and cannot contain / or \\' });
  const inherit = b.inheritPermissions ?? 'None';
  if (!(INHERIT as readonly Json[]).includes(inherit))
    errors.push({ field: 'inheritPermissions', rejected: showRejected(inherit), message: `must be one of ${INHERIT.join(', ')}` });
  if (errors.length > 0 || typeof name !== 'string') return invalid(errors);
  if (c.t.folders.some((f) => f.parentId === parent.id && f.id !== parent.id && f.name.toLowerCase() === name.toLowerCase())) {
    return err(409, `${parent.path} already has a subfolder named ${name}`);
  }
  const copy = inherit !== 'None';
  const folder: TransferFolder = {
    id: c.t.nextFolderId++,
    parentId: parent.id,
    name,
    path: parent.path === '/' ? `/${name}` : `${parent.path}/${name}`,
    folderType: 'Normal',
    owner: '',
    parentInheritRights: inherit === 'Always' ? 1 : 0,
    details: { ...folderDetailDefaults(), lastContentChangeTime: new Date(nowMs(c.rt.state)).toISOString() },
    acl: copy ? parent.acl.map((e) => ({ ...structuredClone(e), isEditable: true, isDeletable: true })) : [],
  };
  c.t.folders.push(folder);
  return c.v['transfer.folderAnswer'] === 'empty' ? emptyResponse(201) : jsonResponse(201, renderFolder(c, folder));
}

/**
 * PATCH /folders/{id} `{name}` (FolderPatchModel): a rename in place; the paths of the folders
 * below follow. The root cannot be renamed (403, emulator choice).
 */
function renameFolder(c: Ctx, p: Params): ApiResponse {
  const f = visibleFolder(c, p.id!);
  if (!f) return folderForbidden(p.id!);
  if (!effectivePermissions(c.t, c.caller, f).admin) return err(403, `you may not rename ${f.path}`);
  const parent = c.t.folders.find((x) => x.id === f.parentId && x.id !== f.id);
  if (!parent) return err(403, 'the root folder cannot be renamed');
  const body = jsonBody(c);
  if (!body.ok) return body.response;
  const b = body.value;
  if (!isJsonObject(b)) return invalid([{ field: '', rejected: showRejected(b), message: 'the body must be {name}' }]);
  const errors: FieldError[] = [];
  for (const k of Object.keys(b))
    if (k !== 'name') errors.push({ field: k, rejected: showRejected(b[k]), message: 'is not a field of FolderPatchModel (name)' });
  const name = b.name;
  if (typeof name !== 'string' || name.trim() === '' || /[/\\]/.test(name))
    errors.push({ field: 'name', rejected: showRejected(name), message: 'name is required and cannot contain / or \\' });
  if (errors.length > 0 || typeof name !== 'string') return invalid(errors);
  // A case-only rename of the folder itself is allowed; a sibling of that name (any case) is not.
  if (c.t.folders.some((x) => x.parentId === parent.id && x.id !== f.id && x.id !== parent.id && x.name.toLowerCase() === name.toLowerCase())) {
    return err(409, `${parent.path} already has a subfolder named ${name}`);
  }
  const from = f.path;
  const to = parent.path === '/' ? `/${name}` : `${parent.path}/${name}`;
  for (const x of c.t.folders) if (x.path.startsWith(`${from}/`)) x.path = `${to}${x.path.slice(from.length)}`;
  f.name = name;
  f.path = to;
  return jsonResponse(200, renderFolder(c, f));
}

// ---------------------------------------------------------------------------------------------
// Folder ACLs

function entryName(c: Ctx, e: FolderAclEntry): string {
  if (e.type === 'User') return c.t.users.find((u) => u.id === e.id)?.username ?? '';
  return c.t.groups.find((g) => String(g.id) === e.id)?.name ?? '';
}

/** The entry's `name` as answered (`transfer.aclName`); the lists sort by it. */
function shownName(c: Ctx, e: FolderAclEntry): string | undefined {
  const fullName = e.type === 'User' ? (c.t.users.find((u) => u.id === e.id)?.fullName ?? '') : entryName(c, e);
  return shownEntryName({ name: entryName(c, e), fullName }, c.v);
}

function renderEntry(c: Ctx, e: FolderAclEntry): JsonObject {
  return encodeEntry(e, shownName(c, e), c.v);
}

function listAcl(c: Ctx, p: Params): ApiResponse {
  const f = visibleFolder(c, p.id!);
  if (!f) return folderForbidden(p.id!);
  churnAcl(c.rt.churn, c.t, f, { ...emptyPermissions(), readFiles: true, listFiles: true });
  return listResponse(
    c,
    f.acl,
    ['name', 'type'],
    'name',
    (e, field) => (field === 'type' ? e.type : (shownName(c, e) ?? '')),
    (e) => renderEntry(c, e),
  );
}

/** The answer to an entry write (`transfer.aclAnswer`): the whole entry list, the entry written, or no body. */
function aclAnswer(c: Ctx, f: TransferFolder, written: FolderAclEntry): ApiResponse {
  const form = c.v['transfer.aclAnswer'];
  switch (form) {
    case 'list': {
      const sorted = [...f.acl].sort((x, y) => compareText(shownName(c, x) ?? '', shownName(c, y) ?? ''));
      const q: TransferListQuery = { page: 1, perPage: Math.max(25, sorted.length), sortField: 'name', sortDirection: 'asc' };
      return jsonResponse(200, transferPage(sorted, q, c.v, (e) => renderEntry(c, e)) ?? {});
    }
    case 'entry':
      return jsonResponse(200, renderEntry(c, written));
    case 'empty':
      return emptyResponse(200);
    default: {
      const never: never = form;
      throw new Error(`unknown aclAnswer form ${String(never)}`);
    }
  }
}

/** Check `{type, id}` of an entry body: the principal must exist (else 422). */
function readPrincipal(c: Ctx, b: JsonObject, errors: FieldError[]): { type: 'User' | 'Group'; id: string } | undefined {
  const type = decodeEntryType(b.type, c.v);
  if (type === undefined) {
    errors.push({
      field: 'type',
      rejected: showRejected(b.type),
      message: c.v['transfer.entryType'] === 'lower' ? 'type must be User or Group (or user, group)' : 'type must be User or Group',
    });
    return undefined;
  }
  const rawId = b.id;
  const id = typeof rawId === 'number' ? String(rawId) : rawId;
  if (typeof id !== 'string' || id === '') {
    errors.push({ field: 'id', rejected: showRejected(rawId), message: 'id is required' });
    return undefined;
  }
  const exists = type === 'User' ? c.t.users.some((u) => u.id === id) : c.t.groups.some((g) => String(g.id) === id);
  if (!exists) {
    errors.push({ field: 'id', rejected: id, message: `no ${type === 'User' ? 'user' : 'group'} has id ${id}` });
    return undefined;
  }
  return { type, id };
}

/** Permissions of a body; missing ones count as false. */
function readPermissions(c: Ctx, value: Json | undefined, errors: FieldError[]): FolderPermissions {
  const out = emptyPermissions();
  if (value === undefined) return out;
  if (!isJsonObject(value)) {
    errors.push({ field: 'permissions', rejected: showRejected(value), message: 'must be an object of booleans' });
    return out;
  }
  for (const [k, v] of Object.entries(value)) {
    if (k === 'sharePermissions') {
      if (!isJsonObject(v)) {
        errors.push({ field: 'permissions.sharePermissions', rejected: showRejected(v), message: 'must be an object of booleans' });
        continue;
      }
      for (const [sk, sv] of Object.entries(v)) {
        if (!(SHARE_PERMISSION_KEYS as readonly string[]).includes(sk))
          errors.push({
            field: `permissions.sharePermissions.${sk}`,
            rejected: showRejected(sv),
            message: `unknown share permission; one of ${SHARE_PERMISSION_KEYS.join(', ')}`,
          });
        else {
          const p = decodePermission(sv, c.v);
          if (p === undefined)
            errors.push({ field: `permissions.sharePermissions.${sk}`, rejected: showRejected(sv), message: `must be ${permissionForms(c.v)}` });
          else out.sharePermissions[sk as (typeof SHARE_PERMISSION_KEYS)[number]] = p;
        }
      }
    } else if (!(FOLDER_PERMISSION_KEYS as readonly string[]).includes(k)) {
      errors.push({
        field: `permissions.${k}`,
        rejected: showRejected(v),
        message: `unknown permission; one of ${FOLDER_PERMISSION_KEYS.join(', ')}, sharePermissions`,
      });
    } else {
      const p = decodePermission(v, c.v);
      if (p === undefined) errors.push({ field: `permissions.${k}`, rejected: showRejected(v), message: `must be ${permissionForms(c.v)}` });
      else out[k as (typeof FOLDER_PERMISSION_KEYS)[number]] = p;
    }
  }
  return out;
}

function aclWriteTarget(c: Ctx, p: Params): { ok: true; folder: TransferFolder } | { ok: false; response: ApiResponse } {
  const f = visibleFolder(c, p.id!);
  if (!f) return { ok: false, response: folderForbidden(p.id!) };
  if (!effectivePermissions(c.t, c.caller, f).admin) return { ok: false, response: err(403, `you may not change the permissions of ${f.path}`) };
  return { ok: true, folder: f };
}

/** The folder an ACL write targets and its JSON object body, or the error answer. */
function aclWriteRequest(c: Ctx, p: Params, shape: string): { ok: true; folder: TransferFolder; body: JsonObject } | { ok: false; response: ApiResponse } {
  const target = aclWriteTarget(c, p);
  if (!target.ok) return target;
  const body = jsonBody(c);
  if (!body.ok) return body;
  const b = body.value;
  if (!isJsonObject(b)) return { ok: false, response: invalid([{ field: '', rejected: showRejected(b), message: `the body must be ${shape}` }]) };
  return { ok: true, folder: target.folder, body: b };
}

/** POST and PUT: set one entry (create or replace); `extraKey` is the one optional extra field each takes. */
function setEntry(c: Ctx, p: Params, extraKey: string): ApiResponse {
  const request = aclWriteRequest(c, p, '{type, id, permissions}');
  if (!request.ok) return request.response;
  const { folder: f, body: b } = request;
  const errors: FieldError[] = [];
  for (const k of Object.keys(b))
    if (!['type', 'id', 'permissions', extraKey].includes(k))
      errors.push({ field: k, rejected: showRejected(b[k]), message: `is not a field of this body (type, id, permissions, ${extraKey})` });
  const who = readPrincipal(c, b, errors);
  const permissions = readPermissions(c, b.permissions, errors);
  if (errors.length > 0 || !who) return invalid(errors);
  let written = f.acl.find((e) => e.type === who.type && e.id === who.id);
  if (written) {
    if (!written.isEditable) return err(403, `the entry of ${entryName(c, written)} on ${f.path} cannot be changed`);
    written.permissions = permissions;
  } else {
    written = { type: who.type, id: who.id, permissions, isEditable: true, isDeletable: true };
    f.acl.push(written);
  }
  return aclAnswer(c, f, written);
}

function deleteEntry(c: Ctx, p: Params): ApiResponse {
  const request = aclWriteRequest(c, p, '{type, id}');
  if (!request.ok) return request.response;
  const { folder: f, body: b } = request;
  const errors: FieldError[] = [];
  const who = readPrincipal(c, b, errors);
  if (errors.length > 0 || !who) return invalid(errors);
  const i = f.acl.findIndex((e) => e.type === who.type && e.id === who.id);
  if (i < 0) return err(404, `${f.path} has no entry for ${who.type} ${who.id}`);
  const entry = f.acl[i]!;
  if (!entry.isEditable || !entry.isDeletable) return err(403, `the entry of ${entryName(c, entry)} on ${f.path} cannot be removed`);
  f.acl.splice(i, 1);
  return emptyResponse(204);
}

const ROUTES: readonly Route<Ctx>[] = [
  ...USER_ROUTES,
  { method: 'GET', pattern: '/folders', handle: listFolders },
  { method: 'GET', pattern: '/folders/:id', handle: getFolder },
  { method: 'GET', pattern: '/folders/:id/subfolders', handle: listSubfolders },
  { method: 'PATCH', pattern: '/folders/:id', handle: renameFolder },
  { method: 'POST', pattern: '/folders/:id/subfolders', handle: createSubfolder },
  { method: 'GET', pattern: '/folders/:id/acls', handle: listAcl },
  { method: 'POST', pattern: '/folders/:id/acls', handle: (c, p) => setEntry(c, p, 'notificationMessage') },
  { method: 'PUT', pattern: '/folders/:id/acls', handle: (c, p) => setEntry(c, p, 'overrideBehaviourType') },
  { method: 'DELETE', pattern: '/folders/:id/acls', handle: deleteEntry },
];
