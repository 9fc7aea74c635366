import { isRecord } from '../../is-record.js';
import { ApiError } from '../errors.js';
import type { HttpMethod } from '../errors.js';
import { Connection } from '../connection.js';
import type { ClientOptions } from '../connection.js';
import { parseListPage } from '../paging.js';
import type { PagingPlan } from '../paging.js';
import type { QueryParams } from '../transport.js';
import { readAcl, readNamedObject, readSchedulerStatus, readTask, readUserGroupMembers, unwrapHost, writeAclPermissions, writeTask } from './normalize.js';
import type { AutomationWireForms } from './normalize.js';
import { readCredential } from './normalize-credentials.js';
import type { Credential, CredentialKind } from '../../credentials/model.js';
import { readRunningTask } from './running-tasks.js';
import type { RunningTask } from './running-tasks.js';
import type {
  AboutInfo,
  AclFilter,
  AuditQuery,
  AuditRecord,
  CustomScript,
  DateList,
  ExportResult,
  Host,
  NamedObject,
  NewResourceGroupAcl,
  ResourceGroup,
  ResourceGroupAcl,
  ResourceGroupAclChanges,
  StartTaskResult,
  Task,
  TaskQuery,
  UserGroup,
  UserGroupMembers,
} from './types.js';

/** The methods that only read the automation server (a plan or drift run gets only these). */
export const AUTOMATION_READ_METHODS = [
  'wireForms',
  'info',
  'listTasks',
  'getTask',
  'listHosts',
  'getHost',
  'listCustomScripts',
  'getCustomScript',
  'listStandardScripts',
  'getStandardScript',
  'listDateLists',
  'getDateList',
  'listGlobalParameters',
  'listResourceGroups',
  'getResourceGroup',
  'getUserGroup',
  'listUserGroups',
  'listResourceGroupAcls',
  'getResourceGroupAcl',
  'getSchedulerStatus',
  'listRunningTasks',
  'exportConfig',
  'auditReport',
  'listCredentials',
] as const;

export type AutomationReadMethod = (typeof AUTOMATION_READ_METHODS)[number];

/** A client of the automation service. Paths are relative to the probed API base. */
export interface AutomationClient {
  readonly service: 'automation';
  /** HTTP requests sent so far, token calls and retries included. */
  readonly requestCount: number;
  /** Of those, token grant/refresh/revoke calls. */
  readonly tokenRequestCount: number;
  /** The forms this server was seen to answer in (docs/server-variants.md); writes use them. */
  wireForms(): Readonly<AutomationWireForms>;

  info(): Promise<AboutInfo>;
  listTasks(query?: TaskQuery): Promise<Task[]>;
  getTask(id: string): Promise<Task>;
  /** The created task as the server answers it; undefined when it answers without a body. */
  createTask(task: Task): Promise<Task | undefined>;
  updateTask(id: string, task: Task): Promise<Task | undefined>;
  deleteTask(id: string): Promise<void>;
  startTask(id: string, params?: Readonly<Record<string, string>>): Promise<StartTaskResult>;

  listHosts(type?: string): Promise<Host[]>;
  getHost(id: string): Promise<Host>;
  listCustomScripts(): Promise<CustomScript[]>;
  getCustomScript(id: string): Promise<CustomScript>;
  listStandardScripts(): Promise<NamedObject[]>;
  getStandardScript(id: string): Promise<NamedObject>;
  listDateLists(): Promise<DateList[]>;
  getDateList(id: string): Promise<DateList>;
  listGlobalParameters(): Promise<NamedObject[]>;

  listResourceGroups(): Promise<ResourceGroup[]>;
  getResourceGroup(name: string): Promise<ResourceGroup>;
  getUserGroup(name: string): Promise<UserGroup>;
  /** GET /usergroups (admin only: 403 otherwise), with each group's members read. */
  listUserGroups(): Promise<UserGroupMembers[]>;
  listResourceGroupAcls(filter?: AclFilter): Promise<ResourceGroupAcl[]>;
  getResourceGroupAcl(id: string): Promise<ResourceGroupAcl>;
  createResourceGroupAcl(acl: NewResourceGroupAcl): Promise<ResourceGroupAcl | undefined>;
  updateResourceGroupAcl(id: string, changes: ResourceGroupAclChanges): Promise<ResourceGroupAcl | undefined>;
  deleteResourceGroupAcl(id: string): Promise<void>;

  getSchedulerStatus(): Promise<boolean>;
  /** GET /tasks/running: the runs going on now (those the server lists as over left out). */
  listRunningTasks(): Promise<RunningTask[]>;
  startScheduler(): Promise<void>;
  stopScheduler(): Promise<void>;

  /** Streams GET /config into `destPath` (created with mode 0600), bytes untouched. */
  exportConfig(destPath: string): Promise<ExportResult>;
  /** PUT /config: replaces the whole configuration, so it is retried like a read (`idempotent`). */
  importConfig(xml: Buffer | string): Promise<void>;
  /** POST /reports/audit: a read (it changes nothing, and is retried like one). */
  auditReport(query: AuditQuery): Promise<AuditRecord[]>;
  /** GET /pgpkeys, /sshkeys or /sslcerts, every page, normalised (register A-31): public metadata only. */
  listCredentials(kind: CredentialKind): Promise<Credential[]>;

  /** Revoke the tokens and close the connection pool. */
  close(): Promise<void>;
}

/** Read methods plus the counters; the write methods do not exist on the object at all. */
export type ReadonlyAutomationClient = Pick<AutomationClient, AutomationReadMethod | 'service' | 'requestCount' | 'tokenRequestCount'>;

/** The configured URL names the API when it ends in one of these (then no probing). */
const API_PATH = /\/(webadmin\/)?api\/v1$/;

const CREDENTIAL_PATHS: Readonly<Record<CredentialKind, string>> = { pgp: '/pgpkeys', ssh: '/sshkeys', ssl: '/sslcerts' };

/** The reference: page and perPage both absent returns everything in one response. */
const LIST: PagingPlan = { mode: 'all-first', perPage: 1000 };

export function createAutomationClient(opts: ClientOptions): AutomationClient {
  return new HttpAutomationClient(opts);
}

class HttpAutomationClient implements AutomationClient {
  readonly service = 'automation' as const;
  readonly #c: Connection;
  /** Filled in by every answer read (the normaliser notes each form it meets first). */
  readonly #seen: AutomationWireForms = {};

  constructor(opts: ClientOptions) {
    this.#c = new Connection({
      ...opts,
      service: 'automation',
      apiBaseCandidates: (base) => (API_PATH.test(base) ? [base] : [`${base}/api/v1`, `${base}/webadmin/api/v1`]),
      revokeWithBearer: false,
      defaultLifetimeSec: 300,
    });
  }

  get requestCount(): number {
    return this.#c.transport.requestCount;
  }

  get tokenRequestCount(): number {
    return this.#c.transport.tokenRequestCount;
  }

  wireForms(): Readonly<AutomationWireForms> {
    return { ...this.#seen };
  }

  async info(): Promise<AboutInfo> {
    return this.#object('GET', '/info');
  }

  async listTasks(query: TaskQuery = {}): Promise<Task[]> {
    const items = await this.#c.list('/tasks', LIST, { name: query.name, fields: query.fields?.join(',') });
    return items.map((t) => (isRecord(t) ? readTask(t, this.#seen) : this.#unexpected('GET', '/tasks', 'a task item is not an object')));
  }

  async getTask(id: string): Promise<Task> {
    return readTask(await this.#object('GET', `/tasks/${seg(id)}`), this.#seen);
  }

  async createTask(task: Task): Promise<Task | undefined> {
    return this.#optionalTask(await this.#c.json('POST', '/tasks', { body: { kind: 'json', value: writeTask(task, this.#seen) } }));
  }

  async updateTask(id: string, task: Task): Promise<Task | undefined> {
    return this.#optionalTask(await this.#c.json('PUT', `/tasks/${seg(id)}`, { body: { kind: 'json', value: writeTask(task, this.#seen) } }));
  }

  async deleteTask(id: string): Promise<void> {
    await this.#c.json('DELETE', `/tasks/${seg(id)}`);
  }

  async startTask(id: string, params?: Readonly<Record<string, string>>): Promise<StartTaskResult> {
    const body = await this.#c.json('POST', `/tasks/${seg(id)}/start`, params ? { body: { kind: 'json', value: params } } : {});
    return isRecord(body) ? body : {};
  }

  async listHosts(type?: string): Promise<Host[]> {
    const items = await this.#c.list('/hosts', LIST, { type });
    return items.map((h) => unwrapHost(h, type) ?? this.#unexpected('GET', '/hosts', 'a host item is not an object'));
  }

  async getHost(id: string): Promise<Host> {
    const path = `/hosts/${seg(id)}`;
    const host = unwrapHost(await this.#c.json('GET', path)) ?? this.#unexpected('GET', path, 'expected a host object');
    if (host.type !== 'unknown') return host;
    // A flat answer need not say its type (gaps.md); the list always does, wrapped by type key.
    const listed = (await this.listHosts()).find((h) => String(h.ID) === String(host.ID ?? id));
    return listed ? { ...host, type: listed.type } : host;
  }

  async listCustomScripts(): Promise<CustomScript[]> {
    return this.#namedList('/customscripts');
  }

  async getCustomScript(id: string): Promise<CustomScript> {
    return readNamedObject(await this.#object('GET', `/customscripts/${seg(id)}`), this.#seen);
  }

  async listStandardScripts(): Promise<NamedObject[]> {
    return this.#namedList('/standardscripts');
  }

  async getStandardScript(id: string): Promise<NamedObject> {
    return readNamedObject(await this.#object('GET', `/standardscripts/${seg(id)}`), this.#seen);
  }

  async listDateLists(): Promise<DateList[]> {
    return this.#namedList('/datelists');
  }

  async getDateList(id: string): Promise<DateList> {
    return readNamedObject(await this.#object('GET', `/datelists/${seg(id)}`), this.#seen);
  }

  async listGlobalParameters(): Promise<NamedObject[]> {
    return this.#namedList('/globalparameters');
  }

  async listResourceGroups(): Promise<ResourceGroup[]> {
    return this.#list('/resourcegroups');
  }

  async getResourceGroup(name: string): Promise<ResourceGroup> {
    return this.#object('GET', `/resourcegroups/${seg(name)}`);
  }

  async getUserGroup(name: string): Promise<UserGroup> {
    return this.#object('GET', `/usergroups/${seg(name)}`);
  }

  async listUserGroups(): Promise<UserGroupMembers[]> {
    const items = await this.#list<unknown>('/usergroups');
    return items.filter(isRecord).flatMap((g) => readUserGroupMembers(g) ?? []);
  }

  async listResourceGroupAcls(filter: AclFilter = {}): Promise<ResourceGroupAcl[]> {
    const items = await this.#list<unknown>('/resourcegroups/acls', { resourceGroupName: filter.resourceGroupName, userGroupName: filter.userGroupName });
    return items.filter(isRecord).map((a) => readAcl(a, this.#seen));
  }

  async getResourceGroupAcl(id: string): Promise<ResourceGroupAcl> {
    return readAcl(await this.#object('GET', `/resourcegroups/acls/${seg(id)}`), this.#seen);
  }

  async createResourceGroupAcl(acl: NewResourceGroupAcl): Promise<ResourceGroupAcl | undefined> {
    const value = { ...acl, Permissions: writeAclPermissions(acl.Permissions, this.#seen) };
    return this.#optionalAcl(await this.#c.json('POST', '/resourcegroups/acls', { body: { kind: 'json', value } }));
  }

  async updateResourceGroupAcl(id: string, changes: ResourceGroupAclChanges): Promise<ResourceGroupAcl | undefined> {
    const value = changes.Permissions === undefined ? changes : { ...changes, Permissions: writeAclPermissions(changes.Permissions, this.#seen) };
    return this.#optionalAcl(await this.#c.json('PUT', `/resourcegroups/acls/${seg(id)}`, { body: { kind: 'json', value } }));
  }

  async deleteResourceGroupAcl(id: string): Promise<void> {
    await this.#c.json('DELETE', `/resourcegroups/acls/${seg(id)}`);
  }

  async getSchedulerStatus(): Promise<boolean> {
    const status = readSchedulerStatus(await this.#c.json('GET', '/tasks/scheduler'));
    return status ?? this.#unexpected('GET', '/tasks/scheduler', 'unrecognised scheduler status');
  }

  async listRunningTasks(): Promise<RunningTask[]> {
    const items = await this.#c.list('/tasks/running', LIST);
    return items.flatMap((item) => {
      const read = readRunningTask(item) ?? this.#unexpected('GET', '/tasks/running', 'a running-task item names no task (no TaskID or TaskName)');
      return read.ended ? [] : [read.task];
    });
  }

  async startScheduler(): Promise<void> {
    await this.#c.json('PUT', '/tasks/scheduler/start');
  }

  async stopScheduler(): Promise<void> {
    await this.#c.json('PUT', '/tasks/scheduler/stop');
  }

  async exportConfig(destPath: string): Promise<ExportResult> {
    return this.#c.call('GET', '/config', { accept: 'application/xml, application/json', deadline: 'export' }, (t, req) => t.sendToFile(req, destPath));
  }

  async importConfig(xml: Buffer | string): Promise<void> {
    await this.#c.call('PUT', '/config', { body: { kind: 'xml', value: xml }, retry: 'idempotent' }, (t, req) => t.sendDiscard(req));
  }

  async auditReport(query: AuditQuery): Promise<AuditRecord[]> {
    const value = { predicate: query.predicate, orderBy: query.orderBy, maxCount: query.maxCount };
    const body = await this.#c.json('POST', '/reports/audit', { body: { kind: 'json', value }, retry: 'read' });
    // Wrapped in `items` or a bare array (gaps.md), like any list.
    const page = parseListPage(body);
    return page ? (page.items as AuditRecord[]) : this.#unexpected('POST', '/reports/audit', 'expected a list of audit records');
  }

  async listCredentials(kind: CredentialKind): Promise<Credential[]> {
    return (await this.#list<unknown>(CREDENTIAL_PATHS[kind])).filter(isRecord).map((x) => readCredential(kind, x));
  }

  close(): Promise<void> {
    return this.#c.close();
  }

  async #list<T>(path: string, query: QueryParams = {}): Promise<T[]> {
    return (await this.#c.list(path, LIST, query)) as T[];
  }

  /** Scripts, date lists, global parameters: ids as strings. */
  async #namedList<T extends NamedObject>(path: string): Promise<T[]> {
    return (await this.#list<unknown>(path)).filter(isRecord).map((x) => readNamedObject(x, this.#seen) as T);
  }

  async #object<T>(method: HttpMethod, path: string): Promise<T> {
    const body = await this.#c.json(method, path);
    return isRecord(body) ? (body as T) : this.#unexpected(method, path, 'expected a JSON object');
  }

  #optionalTask(body: unknown): Task | undefined {
    return isRecord(body) ? readTask(body, this.#seen) : undefined;
  }

  /** The ACL a write answered with; an answer without an `ACLID` (or none) is no ACL. */
  #optionalAcl(body: unknown): ResourceGroupAcl | undefined {
    return isRecord(body) && body.ACLID !== undefined ? readAcl(body, this.#seen) : undefined;
  }

  #unexpected(method: HttpMethod, path: string, note: string): never {
    throw new ApiError({ service: 'automation', method, path: `${this.#c.session.knownApiBase ?? ''}${path}`, status: 200, body: { fieldErrors: [], note } });
  }
}

/** One path segment: ids and names may hold spaces, slashes or `#`. */
function seg(value: string): string {
  return encodeURIComponent(value);
}

/** A new object with only the read methods (bound) and the counters: a cast cannot reach a write. */
export function toReadonlyAutomationClient(client: AutomationClient): ReadonlyAutomationClient {
  const view: Record<string, unknown> = { service: client.service };
  for (const name of AUTOMATION_READ_METHODS) {
    const fn = client[name] as (...args: unknown[]) => unknown;
    view[name] = (...args: unknown[]) => fn.apply(client, args);
  }
  Object.defineProperty(view, 'requestCount', { get: () => client.requestCount, enumerable: true });
  Object.defineProperty(view, 'tokenRequestCount', { get: () => client.tokenRequestCount, enumerable: true });
  return Object.freeze(view) as unknown as ReadonlyAutomationClient;
}
