import type { Json, JsonObject } from './json.js';
import type { FolderAclEntry, Variants } from './state.js';
import { matchesGlob } from './paging.js';

/*
 * The transfer service's wire edge: folders and ACL entries are stored in one form and answered
 * in the readings the variants name; entry bodies are read in the documented form or the answered
 * one (anything else is a 422 in transfer.ts).
 */

/** A folder or group id in the `transfer.ids` reading. */
export function encodeTransferId(id: number, v: Variants): Json {
  const form = v['transfer.ids'];
  switch (form) {
    case 'number':
      return id;
    case 'string':
      return String(id);
    default: {
      const never: never = form;
      throw new Error(`unknown transfer ids form ${String(never)}`);
    }
  }
}

/** A group id: a number, or a string on `transfer.ids=string` or `transfer.groupIds=string`. */
export function encodeGroupId(id: number, v: Variants): Json {
  return v['transfer.groupIds'] === 'string' ? String(id) : encodeTransferId(id, v);
}

/** The key a user record's full name goes under (`transfer.userName`). */
export function fullNameKey(v: Variants): 'fullName' | 'realname' {
  const form = v['transfer.userName'];
  switch (form) {
    case 'fullName':
      return 'fullName';
    case 'realname':
      return 'realname';
    default: {
      const never: never = form;
      throw new Error(`unknown userName form ${String(never)}`);
    }
  }
}

/**
 * The keys a user body may give the full name under: `fullName` (UserPatchModel, AddUserModel),
 * `realName` (the older AddUserModel of transfer-api.md), and on `realname` the answered `realname`.
 */
export function fullNameInputKeys(v: Variants): readonly string[] {
  return v['transfer.userName'] === 'realname' ? ['fullName', 'realName', 'realname'] : ['fullName', 'realName'];
}

/** A folder path in the `transfer.pathStyle` reading (the root stays `/`). */
export function encodeFolderPath(path: string, v: Variants): string {
  return v['transfer.pathStyle'] === 'trailing' && path !== '/' ? `${path}/` : path;
}

/**
 * Whether a folder matches `GET /folders?path=` under `transfer.pathFilter` (case-insensitive
 * masks, an exact case-sensitive match, or no filter at all). On `trailing`, the path the server
 * answers (`/A/B/`) finds the folder too.
 */
export function folderPathMatches(path: string, query: string, v: Variants): boolean {
  const wanted = v['transfer.pathStyle'] === 'trailing' && query.length > 1 && query.endsWith('/') ? query.slice(0, -1) : query;
  const filter = v['transfer.pathFilter'];
  switch (filter) {
    case 'insensitive':
      return matchesGlob(path, wanted);
    case 'exact':
      return path === wanted;
    case 'ignored':
      return true;
    default: {
      const never: never = filter;
      throw new Error(`unknown path filter ${String(never)}`);
    }
  }
}

/** What an entry's `name` shows under `transfer.aclName`; undefined: no name. */
export function shownEntryName(names: { readonly name: string; readonly fullName: string }, v: Variants): string | undefined {
  const form = v['transfer.aclName'];
  switch (form) {
    case 'username':
      return names.name;
    case 'fullName':
      return names.fullName;
    case 'absent':
      return undefined;
    default: {
      const never: never = form;
      throw new Error(`unknown aclName form ${String(never)}`);
    }
  }
}

function encodePermission(p: boolean, v: Variants): Json {
  return v['transfer.permissions'] === 'number' ? (p ? 1 : 0) : p;
}

/** An ACL entry as answered; `name` is what `shownEntryName` gave. */
export function encodeEntry(e: FolderAclEntry, name: string | undefined, v: Variants): JsonObject {
  const share: JsonObject = {};
  for (const [k, p] of Object.entries(e.permissions.sharePermissions)) share[k] = encodePermission(p, v);
  const permissions: JsonObject = {};
  for (const [k, p] of Object.entries(e.permissions)) permissions[k] = typeof p === 'boolean' ? encodePermission(p, v) : share;
  const out: JsonObject = { type: v['transfer.entryType'] === 'lower' ? e.type.toLowerCase() : e.type, id: e.id };
  if (name !== undefined) out.name = name;
  out.permissions = permissions;
  if (v['transfer.entryFlags'] === 'present') Object.assign(out, { isEditable: e.isEditable, isDeletable: e.isDeletable });
  return out;
}

/** An entry body's `type`: `User`/`Group` (documented) or, on `lower`, `user`/`group`; else undefined. */
export function decodeEntryType(raw: Json | undefined, v: Variants): FolderAclEntry['type'] | undefined {
  if (raw === 'User' || raw === 'Group') return raw;
  if (v['transfer.entryType'] === 'lower') return raw === 'user' ? 'User' : raw === 'group' ? 'Group' : undefined;
  return undefined;
}

/** A permission value: a boolean (documented) or, on `number`, 0/1; else undefined. */
export function decodePermission(raw: Json, v: Variants): boolean | undefined {
  if (typeof raw === 'boolean') return raw;
  if (v['transfer.permissions'] === 'number' && (raw === 0 || raw === 1)) return raw === 1;
  return undefined;
}

/** The accepted forms, for the 422 message. */
export function permissionForms(v: Variants): string {
  return v['transfer.permissions'] === 'number' ? 'true/false or 0/1' : 'true or false';
}
