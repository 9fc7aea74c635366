import { isRecord } from '../error-body.js';
import { ApiError } from '../errors.js';
import type { HttpMethod } from '../errors.js';
import { Connection } from '../connection.js';
import type { ClientOptions } from '../connection.js';
import { parseListPage } from '../paging.js';
import type { PagingPlan } from '../paging.js';
import type { QueryParams } from '../transport.js';
import type { Folder, FolderAclEntry, FolderAclInput, FolderAclRef, FolderPermissions, NewSubfolder, TransferGroup, TransferUser } from './types.js';
import { trimFolderPath } from '../../folder-path.js';

/** The methods that only read the transfer server. */
export const TRANSFER_READ_METHODS = [
  'tokenCheck',
  'currentUser',
  'findUser',
  'listUsers',
  'listGroups',
  'findGroup',
  'findFolderByPath',
  'listFolders',
  'getFolder',
  'listSubfolders',
  'listFolderAcls',
] as const;

export type TransferReadMethod = (typeof TRANSFER_READ_METHODS)[number];

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
  listUsers(): Promise<TransferUser[]>;
  listGroups(): Promise<TransferGroup[]>;
  /** The group with this name (exact, else the only case-insensitive match), or null. */
  findGroup(name: string): Promise<TransferGroup | null>;
  /** The folder whose `path` is exactly `path`, or null when absent or not permitted (403). */
  findFolderByPath(path: string): Promise<Folder | null>;
  /** Every folder the account may see, in big pages: one list instead of a lookup per path. */
  listFolders(): Promise<Folder[]>;
  getFolder(id: string | number): Promise<Folder>;
  listSubfolders(id: string | number): Promise<Folder[]>;
  createSubfolder(parentId: string | number, folder: NewSubfolder): Promise<Folder>;
  /** PATCH /folders/{id} `{name}`: rename in place (the folders below follow); answers the folder. */
  renameFolder(id: string | number, name: string): Promise<Folder>;
  listFolderAcls(folderId: string | number): Promise<FolderAclEntry[]>;
  /** PUT: create or update one entry; answers the folder's whole ACL. */
  setFolderAcl(folderId: string | number, entry: FolderAclInput): Promise<FolderAclEntry[]>;
  /** POST: add one entry; answers the folder's whole ACL. */
  addFolderAcl(folderId: string | number, entry: FolderAclInput): Promise<FolderAclEntry[]>;
  /** DELETE with a JSON body `{type, id}` on the collection URL. */
  deleteFolderAcl(folderId: string | number, entry: FolderAclRef): Promise<void>;

  /** Revoke the tokens and close the connection pool. */
  close(): Promise<void>;
}

export type ReadonlyTransferClient = Pick<TransferClient, TransferReadMethod | 'service' | 'requestCount' | 'tokenRequestCount'>;

/** The reference's default page is 25; ask for big pages and follow totalPages. */
const LIST: PagingPlan = { mode: 'paged', perPage: 1000 };

const API_PATH = /\/api\/v1$/;

export function createTransferClient(opts: ClientOptions): TransferClient {
  return new HttpTransferClient(opts);
}

class HttpTransferClient implements TransferClient {
  readonly service = 'transfer' as const;
  readonly #c: Connection;

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
    return toUser(await this.#object('GET', '/users/self'));
  }

  async findUser(username: string): Promise<TransferUser | null> {
    const users = (await this.#c.list('/users', LIST, { username, isExactMatch: true })).filter(isRecord).map(toUser);
    return users.find((u) => u.username === username) ?? users.find((u) => u.username.toLowerCase() === username.toLowerCase()) ?? null;
  }

  async listUsers(): Promise<TransferUser[]> {
    return (await this.#list('/users')).map(toUser);
  }

  async listGroups(): Promise<TransferGroup[]> {
    return (await this.#list('/groups')).map(toGroup);
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
    const want = trimFolderPath(path);
    return items.map(toFolder).find((f) => trimFolderPath(f.path) === want) ?? null;
  }

  async listFolders(): Promise<Folder[]> {
    return (await this.#list('/folders')).map(toFolder);
  }

  async getFolder(id: string | number): Promise<Folder> {
    return toFolder(await this.#object('GET', `/folders/${seg(id)}`));
  }

  async listSubfolders(id: string | number): Promise<Folder[]> {
    return (await this.#list(`/folders/${seg(id)}/subfolders`)).map(toFolder);
  }

  async createSubfolder(parentId: string | number, folder: NewSubfolder): Promise<Folder> {
    const value = { name: folder.name, inheritPermissions: folder.inheritPermissions };
    return toFolder(await this.#object('POST', `/folders/${seg(parentId)}/subfolders`, value));
  }

  async renameFolder(id: string | number, name: string): Promise<Folder> {
    const path = `/folders/${seg(id)}`;
    const body = await this.#c.json('PATCH', path, { body: { kind: 'json', value: { name } } });
    // A server that answers without the folder: read it back (docs/server-variants.md T-10).
    if (body === undefined) return this.getFolder(id);
    return isRecord(body) ? toFolder(body) : this.#unexpected('PATCH', path, 'expected a JSON object');
  }

  async listFolderAcls(folderId: string | number): Promise<FolderAclEntry[]> {
    return (await this.#list(`/folders/${seg(folderId)}/acls`)).map(toAclEntry);
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

  close(): Promise<void> {
    return this.#c.close();
  }

  async #writeAcl(method: 'PUT' | 'POST', folderId: string | number, entry: FolderAclInput): Promise<FolderAclEntry[]> {
    const path = `/folders/${seg(folderId)}/acls`;
    const value = { type: entry.type, id: String(entry.id), permissions: entry.permissions };
    const body = await this.#c.json(method, path, { body: { kind: 'json', value } });
    // The server answers the whole list; without a body, read it back rather than guess.
    if (body === undefined) return this.listFolderAcls(folderId);
    const page = parseListPage(body);
    if (page === undefined) return this.#unexpected(method, path, 'expected the folder ACL list');
    return page.items.filter(isRecord).map(toAclEntry);
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

function idString(x: unknown): string {
  return typeof x === 'string' ? x : typeof x === 'number' ? String(x) : '';
}

function str(x: unknown): string {
  return typeof x === 'string' ? x : '';
}

function toUser(u: Record<string, unknown>): TransferUser {
  return { ...u, id: idString(u.id), username: str(u.username) };
}

function toGroup(g: Record<string, unknown>): TransferGroup {
  return { ...g, id: idString(g.id), name: str(g.name) };
}

function toFolder(f: Record<string, unknown>): Folder {
  const out: Record<string, unknown> = { ...f, id: idString(f.id), name: str(f.name), path: str(f.path) };
  if (f.parentId !== undefined && f.parentId !== null) out.parentId = idString(f.parentId);
  return out as Folder;
}

function toAclEntry(e: Record<string, unknown>): FolderAclEntry {
  const out: Record<string, unknown> = { ...e, type: str(e.type), id: idString(e.id), permissions: toPermissions(e.permissions) };
  if (e.entryId !== undefined && e.entryId !== null) out.entryId = idString(e.entryId);
  return out as FolderAclEntry;
}

/** Booleans, whether the server sent booleans, 0/1 or "true"/"false"; `sharePermissions` likewise. */
function toPermissions(p: unknown): FolderPermissions {
  if (!isRecord(p)) return {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(p)) {
    if (k === 'sharePermissions') out[k] = toPermissions(v);
    else if (v === 1 || v === 'true') out[k] = true;
    else if (v === 0 || v === 'false') out[k] = false;
    else out[k] = v;
  }
  return out;
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
