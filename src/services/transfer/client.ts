import { isRecord } from '../../is-record.js';
import { ApiError } from '../errors.js';
import type { HttpMethod } from '../errors.js';
import { Connection } from '../connection.js';
import type { ClientOptions } from '../connection.js';
import { parseListPage } from '../paging.js';
import type { PagingPlan } from '../paging.js';
import type { QueryParams } from '../transport.js';
import type {
  Folder,
  FolderAclEntry,
  FolderAclInput,
  FolderAclRef,
  GroupMembersForm,
  GroupMembership,
  NewGroup,
  NewSubfolder,
  NewUser,
  TransferGroup,
  TransferUser,
  TransferUserDetails,
  UserPatch,
} from './types.js';
import { folderKey } from '../../folder-path.js';
import { readAclEntry, readFolder, readGroup, readMemberIds, readUser, readUserDetails, readUserGroupIds } from './normalize.js';
import type { PrincipalNames } from './normalize.js';

/** The methods that only read the transfer server. */
export const TRANSFER_READ_METHODS = [
  'tokenCheck',
  'currentUser',
  'findUser',
  'listUsers',
  'getUser',
  'listGroups',
  'listGroupMembers',
  'findGroup',
  'findFolderByPath',
  'listFolders',
  'getFolder',
  'listSubfolders',
  'listFolderAcls',
] as const;

export type TransferReadMethod = (typeof TRANSFER_READ_METHODS)[number];

/** How a list the client keeps is read: `fresh` reads it from the server again. */
export interface ListOptions {
  readonly fresh?: boolean;
}

export interface TransferClient {
  readonly service: 'transfer';
  /** HTTP requests sent so far, token calls and retries included. */
  readonly requestCount: number;
  /** Of those, token grant/refresh/revoke calls. */
  readonly tokenRequestCount: number;

  /** GET /token without a token: is the API there at all. */
  tokenCheck(): Promise<Record<string, unknown>>;
  currentUser(): Promise<TransferUser>;
  /** The user with exactly this username, or null. */
  findUser(username: string): Promise<TransferUser | null>;
  /**
   * Every user (read once per client: ACL entries are named through it). `fresh` reads it again
   * and keeps that: apply's check of the names a plan resolved must see renames since the plan.
   */
  listUsers(options?: ListOptions): Promise<TransferUser[]>;
  /** GET /users/{id}: the account's details (UserDetailsModel). */
  getUser(id: string): Promise<TransferUserDetails>;
  /** POST /users (AddUserModel); answers the created user. */
  createUser(body: NewUser): Promise<TransferUserDetails>;
  /** PATCH /users/{id} (UserPatchModel, only the fields given); answers the user. */
  patchUser(id: string, body: UserPatch): Promise<TransferUserDetails>;
  /** DELETE /users/{id}. */
  deleteUser(id: string): Promise<void>;
  /** Every group (read once per client; `fresh` as for `listUsers`). */
  listGroups(options?: ListOptions): Promise<TransferGroup[]>;
  /**
   * The members of these groups (by id), in whichever form the server answers (T-16): the user
   * records' group field (no extra request), else one `GET /groups/{id}/members` per group, else
   * one `GET /users?groupId=` per group. Never fails because no form exists or the account may
   * not read it: then `form` is `none` and no group has members.
   */
  listGroupMembers(groupIds: readonly string[]): Promise<GroupMembership>;
  /** The group with this name (exact, else the only case-insensitive match), or null. */
  findGroup(name: string): Promise<TransferGroup | null>;
  /** The folder at `path` (compared as the server does: case and trailing slashes ignored), or null when absent or not permitted (403). */
  findFolderByPath(path: string): Promise<Folder | null>;
  /** Every folder the account may see, in big pages: one list instead of a lookup per path. */
  listFolders(): Promise<Folder[]>;
  getFolder(id: string | number): Promise<Folder>;
  listSubfolders(id: string | number): Promise<Folder[]>;
  createSubfolder(parentId: string | number, folder: NewSubfolder): Promise<Folder>;
  /** PATCH /folders/{id} `{name}`: rename in place (the folders below follow); answers the folder. */
  renameFolder(id: string | number, name: string): Promise<Folder>;
  /** The folder's entries, each user and group named by its id through the user and group lists. */
  listFolderAcls(folderId: string | number): Promise<FolderAclEntry[]>;
  /** PUT: create or update one entry; answers the folder's whole ACL. */
  setFolderAcl(folderId: string | number, entry: FolderAclInput): Promise<FolderAclEntry[]>;
  /** POST: add one entry; answers the folder's whole ACL. */
  addFolderAcl(folderId: string | number, entry: FolderAclInput): Promise<FolderAclEntry[]>;
  /** DELETE with a JSON body `{type, id}` on the collection URL. */
  deleteFolderAcl(folderId: string | number, entry: FolderAclRef): Promise<void>;
  /** POST /groups `{name, description}` (BaseGroupModel): answers the created group (GroupModel). */
  createGroup(body: NewGroup): Promise<TransferGroup>;
  /** POST /groups/{id}/members `{id, userIds}` (GroupAddMemberRequest): adds the users; answers nothing the caller needs. */
  addGroupMembers(groupId: string, userIds: readonly string[]): Promise<void>;
  /** DELETE /groups/{id}/members/{userId}: removes one member. */
  removeGroupMember(groupId: string, userId: string): Promise<void>;

  /** Revoke the tokens and close the connection pool. */
  close(): Promise<void>;
}

export type ReadonlyTransferClient = Pick<TransferClient, TransferReadMethod | 'service' | 'requestCount' | 'tokenRequestCount'>;

/** The reference's default page is 25; ask for big pages and follow totalPages. */
const LIST: PagingPlan = { mode: 'paged', perPage: 1000 };
/**
 * The user list's filters, always sent: the references name the values but not the defaults, and
 * a server whose defaults list only active users would hide a suspended admin from the guard and
 * make a suspended account's manifest look like a create (register T-17).
 */
const EVERY_USER = { permission: 'AllUsers', status: 'AllUsers' } as const;

const API_PATH = /\/api\/v1$/;

export function createTransferClient(opts: ClientOptions): TransferClient {
  return new HttpTransferClient(opts);
}

class HttpTransferClient implements TransferClient {
  readonly service = 'transfer' as const;
  readonly #c: Connection;
  #users: Promise<TransferUser[]> | undefined;
  #groups: Promise<TransferGroup[]> | undefined;
  /** The names of the last `#principalNames`, with the list reads they came from. */
  #names: { users: Promise<TransferUser[]>; groups: Promise<TransferGroup[]>; names: Promise<PrincipalNames> } | undefined;
  /** The members form (`members`, `usersFilter` or `none`) the first probe found, kept for the client's life. */
  #memberForm: GroupMembersForm | undefined;

  constructor(opts: ClientOptions) {
    this.#c = new Connection({
      ...opts,
      service: 'transfer',
      apiBaseCandidates: (base) => [API_PATH.test(base) ? base : `${base}/api/v1`],
      revokeWithBearer: true,
      // The lifetime is a server setting; when a response omits it, assume the automation default.
      defaultLifetimeSec: 300,
    });
  }

  get requestCount(): number {
    return this.#c.transport.requestCount;
  }

  get tokenRequestCount(): number {
    return this.#c.transport.tokenRequestCount;
  }

  async tokenCheck(): Promise<Record<string, unknown>> {
    const body = await this.#c.transport.sendJson({ method: 'GET', path: `${this.#c.session.apiBase}/token`, retry: 'read' });
    return isRecord(body) ? body : {};
  }

  async currentUser(): Promise<TransferUser> {
    return readUser(await this.#object('GET', '/users/self'));
  }

  async findUser(username: string): Promise<TransferUser | null> {
    const users = (await this.#c.list('/users', LIST, { ...EVERY_USER, username, isExactMatch: true })).filter(isRecord).map(readUser);
    return users.find((u) => u.username === username) ?? users.find((u) => u.username.toLowerCase() === username.toLowerCase()) ?? null;
  }

  listUsers(options: ListOptions = {}): Promise<TransferUser[]> {
    if (options.fresh === true) this.#users = undefined;
    return (this.#users ??= forgetOnFailure(
      this.#list('/users', EVERY_USER).then((items) => items.map(readUser)),
      () => (this.#users = undefined),
    ));
  }

  async getUser(id: string): Promise<TransferUserDetails> {
    return readUserDetails(await this.#object('GET', `/users/${seg(id)}`));
  }

  async createUser(body: NewUser): Promise<TransferUserDetails> {
    const created = await this.#c.json('POST', '/users', { body: { kind: 'json', value: body } });
    this.#users = undefined;
    if (isRecord(created) && created.id !== undefined && created.id !== null) return readUserDetails(created);
    // Created, answered without the user: find it by its username.
    const found = await this.findUser(body.username);
    return found ? this.getUser(found.id) : this.#unexpected('POST', '/users', `the created user ${body.username} is not listed`);
  }

  async patchUser(id: string, body: UserPatch): Promise<TransferUserDetails> {
    const path = `/users/${seg(id)}`;
    const answer = await this.#c.json('PATCH', path, { body: { kind: 'json', value: body } });
    this.#users = undefined;
    if (isRecord(answer) && answer.id !== undefined && answer.id !== null) return readUserDetails(answer);
    return this.getUser(id);
  }

  async deleteUser(id: string): Promise<void> {
    await this.#c.json('DELETE', `/users/${seg(id)}`);
    this.#users = undefined;
  }

  listGroups(options: ListOptions = {}): Promise<TransferGroup[]> {
    if (options.fresh === true) this.#groups = undefined;
    return (this.#groups ??= forgetOnFailure(
      this.#list('/groups').then((items) => items.map(readGroup)),
      () => (this.#groups = undefined),
    ));
  }

  async listGroupMembers(groupIds: readonly string[]): Promise<GroupMembership> {
    const none: GroupMembership = { form: 'none', members: new Map() };
    let users: TransferUser[];
    let groups: TransferGroup[];
    try {
      [users, groups] = await Promise.all([this.listUsers(), this.listGroups()]);
    } catch (err) {
      if (isUnavailable(err)) return none;
      throw err;
    }
    const fromRecords = users.map((u) => readUserGroupIds(u, groups));
    if (fromRecords.some((ids) => ids !== undefined)) {
      const members = new Map<string, string[]>(groups.map((g) => [g.id, []]));
      users.forEach((u, i) => {
        for (const g of fromRecords[i] ?? []) members.get(g)?.push(u.id);
      });
      return { form: 'userField', members };
    }
    const wanted = groups.filter((g) => groupIds.includes(g.id));
    if (wanted.length === 0 || this.#memberForm === 'none') return { form: this.#memberForm ?? 'none', members: new Map() };
    // The first group finds the form (its answer kept); the others are read in it.
    const probed = this.#memberForm === undefined ? await this.#probeMemberForm(wanted[0]!, users) : undefined;
    const form = probed?.form ?? this.#memberForm!;
    this.#memberForm = form;
    if (form === 'none' || form === 'userField') return none;
    const members = new Map<string, readonly string[]>();
    const read = await Promise.all(
      wanted.map((g, i) =>
        i === 0 && probed
          ? Promise.resolve(probed.ids)
          : this.#readMembers(form, g, users).catch((err: unknown) => (isUnavailable(err) ? undefined : Promise.reject(err))),
      ),
    );
    wanted.forEach((g, i) => {
      const ids = read[i];
      if (ids !== undefined) members.set(g.id, ids);
    });
    return { form, members };
  }

  async #probeMemberForm(group: TransferGroup, users: readonly TransferUser[]): Promise<{ form: GroupMembersForm; ids?: string[] }> {
    for (const form of ['members', 'usersFilter'] as const) {
      try {
        const ids = await this.#readMembers(form, group, users);
        if (ids !== undefined) return { form, ids };
      } catch (err) {
        if (!isUnavailable(err)) throw err;
      }
    }
    return { form: 'none' };
  }

  /** One group's member ids in `form`; undefined when the answer cannot be trusted (a filter the server ignored). */
  async #readMembers(form: 'members' | 'usersFilter', group: TransferGroup, users: readonly TransferUser[]): Promise<string[] | undefined> {
    switch (form) {
      case 'members':
        return readMemberIds(await this.#c.list(`/groups/${seg(group.id)}/members`, LIST), users);
      case 'usersFilter': {
        const ids = readMemberIds(await this.#c.list('/users', LIST, { ...EVERY_USER, groupId: group.id }), users);
        // A server that ignores the filter answers every user: trust the answer only when the
        // group's count agrees, or, without a count, when it is not everyone.
        const count = group.membersCount;
        const trusted = typeof count === 'number' ? ids.length === count : ids.length < users.length;
        return trusted ? ids : undefined;
      }
      default: {
        const never: never = form;
        throw new Error(`unknown members form ${String(never)}`);
      }
    }
  }

  async findGroup(name: string): Promise<TransferGroup | null> {
    const groups = await this.listGroups();
    const exact = groups.find((g) => g.name === name);
    if (exact) return exact;
    const loose = groups.filter((g) => g.name.toLowerCase() === name.toLowerCase());
    return loose.length === 1 ? loose[0]! : null;
  }

  async findFolderByPath(path: string): Promise<Folder | null> {
    let items: Record<string, unknown>[];
    try {
      items = await this.#list('/folders', { path });
    } catch (err) {
      if (err instanceof ApiError && (err.status === 403 || err.status === 404)) return null;
      throw err;
    }
    // The filter may be exact, case-insensitive, a mask, or ignored (T-7): match again here.
    const want = folderKey(path);
    const found = items.map(readFolder).filter((f) => folderKey(f.path) === want);
    return found.find((f) => f.path === path) ?? found[0] ?? null;
  }

  async listFolders(): Promise<Folder[]> {
    return (await this.#list('/folders')).map(readFolder);
  }

  async getFolder(id: string | number): Promise<Folder> {
    return readFolder(await this.#object('GET', `/folders/${seg(id)}`));
  }

  async listSubfolders(id: string | number): Promise<Folder[]> {
    return (await this.#list(`/folders/${seg(id)}/subfolders`)).map(readFolder);
  }

  async createSubfolder(parentId: string | number, folder: NewSubfolder): Promise<Folder> {
    const value = { name: folder.name, inheritPermissions: folder.inheritPermissions };
    const path = `/folders/${seg(parentId)}/subfolders`;
    const body = await this.#c.json('POST', path, { body: { kind: 'json', value } });
    if (isRecord(body) && body.id !== undefined && body.id !== null) return readFolder(body);
    // Created, answered without the folder (T-8): find it under its parent.
    const created = (await this.listSubfolders(parentId)).find((f) => f.name.toLowerCase() === folder.name.toLowerCase());
    return created ?? this.#unexpected('POST', path, `the created folder ${folder.name} is not listed under its parent`);
  }

  async renameFolder(id: string | number, name: string): Promise<Folder> {
    const path = `/folders/${seg(id)}`;
    const body = await this.#c.json('PATCH', path, { body: { kind: 'json', value: { name } } });
    // A server that answers without the folder: read it back (docs/server-variants.md T-10).
    if (body === undefined || (isRecord(body) && (body.id === undefined || body.id === null))) return this.getFolder(id);
    return isRecord(body) ? readFolder(body) : this.#unexpected('PATCH', path, 'expected a JSON object');
  }

  async listFolderAcls(folderId: string | number): Promise<FolderAclEntry[]> {
    return this.#readEntries(await this.#list(`/folders/${seg(folderId)}/acls`));
  }

  async setFolderAcl(folderId: string | number, entry: FolderAclInput): Promise<FolderAclEntry[]> {
    return this.#writeAcl('PUT', folderId, entry);
  }

  async addFolderAcl(folderId: string | number, entry: FolderAclInput): Promise<FolderAclEntry[]> {
    return this.#writeAcl('POST', folderId, entry);
  }

  async deleteFolderAcl(folderId: string | number, entry: FolderAclRef): Promise<void> {
    await this.#c.json('DELETE', `/folders/${seg(folderId)}/acls`, { body: { kind: 'json', value: { type: entry.type, id: String(entry.id) } } });
  }

  async createGroup(group: NewGroup): Promise<TransferGroup> {
    const value = { name: group.name, ...(group.description !== undefined ? { description: group.description } : {}) };
    const body = await this.#c.json('POST', '/groups', { body: { kind: 'json', value } });
    // The group list the client keeps no longer holds every group.
    this.#groups = undefined;
    if (isRecord(body) && body.id !== undefined && body.id !== null) return readGroup(body);
    // Created, answered without the group: find it by its name.
    const created = await this.findGroup(group.name);
    return created ?? this.#unexpected('POST', '/groups', `the created group ${group.name} is not listed`);
  }

  async addGroupMembers(groupId: string, userIds: readonly string[]): Promise<void> {
    await this.#c.json('POST', `/groups/${seg(groupId)}/members`, { body: { kind: 'json', value: { id: groupId, userIds: [...userIds] } } });
  }

  async removeGroupMember(groupId: string, userId: string): Promise<void> {
    await this.#c.json('DELETE', `/groups/${seg(groupId)}/members/${seg(userId)}`);
  }

  close(): Promise<void> {
    return this.#c.close();
  }

  async #writeAcl(method: 'PUT' | 'POST', folderId: string | number, entry: FolderAclInput): Promise<FolderAclEntry[]> {
    const path = `/folders/${seg(folderId)}/acls`;
    const value = { type: entry.type, id: String(entry.id), permissions: entry.permissions };
    const body = await this.#c.json(method, path, { body: { kind: 'json', value } });
    // The whole list, as gaps.md says; an answer that is not a list (one entry, nothing: T-9) is
    // read back rather than guessed at.
    const page = body === undefined ? undefined : parseListPage(body);
    // A list answer that holds fewer entries than its totals say (a capped page) is read back too.
    const partial = (page?.totalPages ?? 1) > 1 || (page?.totalItems ?? 0) > (page?.items.length ?? 0);
    if (page === undefined || partial) return this.listFolderAcls(folderId);
    return this.#readEntries(page.items.filter(isRecord));
  }

  /** Entries named through the user and group lists, which are read only when an entry needs them. */
  async #readEntries(items: readonly Record<string, unknown>[]): Promise<FolderAclEntry[]> {
    const needs = items.some((e) => /^(user|group)$/i.test(String(e.type)));
    const names = needs ? await this.#principalNames() : NO_NAMES;
    return items.map((e) => readAclEntry(e, names));
  }

  /**
   * Usernames and group names by id; a list the account may not read names nobody (403/404).
   * Built once per pair of list reads (the lists are kept), not once per folder ACL.
   */
  #principalNames(): Promise<PrincipalNames> {
    const usersRead = this.listUsers();
    const groupsRead = this.listGroups();
    const last = this.#names;
    if (last !== undefined && last.users === usersRead && last.groups === groupsRead) return last.names;
    const orNone = <T>(read: Promise<T[]>): Promise<T[]> =>
      read.catch((err: unknown) => {
        if (err instanceof ApiError && (err.status === 403 || err.status === 404)) return [];
        throw err;
      });
    const names = Promise.all([orNone(usersRead), orNone(groupsRead)]).then(([users, groups]): PrincipalNames => {
      const userNames = new Map(users.map((u) => [u.id, u.username]));
      const groupNames = new Map(groups.map((g) => [g.id, g.name]));
      return { user: (id) => userNames.get(id) || undefined, group: (id) => groupNames.get(id) || undefined };
    });
    this.#names = { users: usersRead, groups: groupsRead, names };
    return names;
  }

  async #list(path: string, query: QueryParams = {}): Promise<Record<string, unknown>[]> {
    const items = await this.#c.list(path, LIST, query);
    return items.filter(isRecord);
  }

  async #object(method: HttpMethod, path: string, value?: unknown): Promise<Record<string, unknown>> {
    const body = await this.#c.json(method, path, value === undefined ? {} : { body: { kind: 'json', value } });
    return isRecord(body) ? body : this.#unexpected(method, path, 'expected a JSON object');
  }

  #unexpected(method: HttpMethod, path: string, note: string): never {
    throw new ApiError({ service: 'transfer', method, path: `${this.#c.session.knownApiBase ?? ''}${path}`, status: 200, body: { fieldErrors: [], note } });
  }
}

/** A read the server does not offer or the account may not make (400, 403, 404, 405, 501): an optional read then tells nothing. */
function isUnavailable(err: unknown): boolean {
  return err instanceof ApiError && [400, 403, 404, 405, 501].includes(err.status);
}

const NO_NAMES: PrincipalNames = { user: () => undefined, group: () => undefined };

/** A read kept for the client's life, unless it fails: then the next call reads again. */
function forgetOnFailure<T>(read: Promise<T>, forget: () => void): Promise<T> {
  return read.catch((err: unknown) => {
    forget();
    throw err;
  });
}

function seg(value: string | number): string {
  return encodeURIComponent(String(value));
}

/** A new object with only the read methods (bound) and the counters: a cast cannot reach a write. */
export function toReadonlyTransferClient(client: TransferClient): ReadonlyTransferClient {
  const view: Record<string, unknown> = { service: client.service };
  for (const name of TRANSFER_READ_METHODS) {
    const fn = client[name] as (...args: unknown[]) => unknown;
    view[name] = (...args: unknown[]) => fn.apply(client, args);
  }
  Object.defineProperty(view, 'requestCount', { get: () => client.requestCount, enumerable: true });
  Object.defineProperty(view, 'tokenRequestCount', { get: () => client.tokenRequestCount, enumerable: true });
  return Object.freeze(view) as unknown as ReadonlyTransferClient;
}
