import type { TokenDialect, TokenErrorCode, TokenLifetimes } from './auth.js';
import { checkBearer, handleTokenGrant, revokeToken } from './auth.js';
import { recordAudit, parseAuditQuery, runAuditQuery } from './audit.js';
import { decodeAcl, decodeTask, encodeAcl, encodeObjectId, encodeValue, withDecodeErrors } from './automation-wire.js';
import { exportConfig, hostileExport, importConfig } from './config-xml.js';
import type { ApiRequest, ApiResponse, FieldError, Params, Route } from './http.js';
import { automationError, emptyResponse, isFormRequest, isJsonRequest, jsonResponse, matchRoute, parseJsonBody } from './http.js';
import type { Json, JsonObject } from './json.js';
import { isJsonObject, showRejected } from './json.js';
import type { AutomationListQuery } from './paging.js';
import { automationPage, compareText, matchesNameMask, parseAutomationListQuery, pickFields } from './paging.js';
import type { AclPermission, AclRecord, AutomationState, AutomationUser, EmulatorState, HostRecord, Variants } from './state.js';
import { ACL_PERMISSION_KEYS, allocateId, nowMs, settleRuns } from './state.js';
import { addRun, runningView } from './task-runs.js';
import type { TaskRights } from './task-view.js';
import { renderTask } from './task-view.js';
import { normalizeTask, orderTaskKeys } from './validate-task.js';
import { NAMED_SETS } from './variants.js';
import type { CredentialList } from './credentials.js';
import { credentialSortName, encodeCredential } from './credentials.js';

export interface AutomationRuntime {
  readonly state: EmulatorState;
  readonly lifetimes: TokenLifetimes;
}

interface Ctx {
  readonly req: ApiRequest;
  readonly rt: AutomationRuntime;
  readonly a: AutomationState;
  /** The readings the answers are encoded in and bodies decoded from. */
  readonly v: Variants;
  readonly caller: AutomationUser;
}

const err = automationError;

function tokenError(code: TokenErrorCode, description: string): ApiResponse {
  return jsonResponse(400, { error: code, error_description: description });
}

function tokenDialect(rt: AutomationRuntime): TokenDialect {
  const a = rt.state.automation;
  return {
    tokens: a.tokens,
    lifetimes: rt.lifetimes,
    now: () => nowMs(rt.state),
    verifyPassword: (username, password) => a.users.find((u) => u.Username.toLowerCase() === username.toLowerCase() && u.Password === password)?.Username,
    userExists: (username) => a.users.some((u) => u.Username === username),
    tokenError,
    variants: rt.state.variants,
  };
}

/** Entry point for everything below `/api/v1` of the automation service. */
export function handleAutomation(req: ApiRequest, rt: AutomationRuntime): ApiResponse {
  if (req.path === '/token' || req.path === '/token/revoke') {
    if (req.method !== 'POST') return err(405, `${req.method} is not supported on ${req.path}; use POST`);
    if (req.path === '/token') return handleTokenGrant(req, tokenDialect(rt));
    if (!isFormRequest(req)) return tokenError('invalid_request', 'the revoke call takes application/x-www-form-urlencoded');
    const token = new URLSearchParams(req.body.toString('utf8')).get('token');
    if (!token) return tokenError('invalid_request', 'token is required');
    revokeToken(rt.state.automation.tokens, token);
    return emptyResponse(200);
  }
  const a = rt.state.automation;
  const bearer = checkBearer(req, a.tokens, nowMs(rt.state));
  if (!bearer.ok) return err(401, bearer.detail);
  const caller = a.users.find((u) => u.Username === bearer.username);
  if (!caller) return err(401, 'the user of this token no longer exists');
  const match = matchRoute(ROUTES, req.method, req.path);
  switch (match.kind) {
    case 'not-found':
      return err(404, `no resource at ${req.path}`);
    case 'method-not-allowed':
      return err(405, `${req.method} is not supported on ${req.path}`);
    case 'found':
      return match.route.handle({ req, rt, a, v: rt.state.variants, caller }, match.params);
    default: {
      const never: never = match;
      throw new Error(`unknown match ${JSON.stringify(never)}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

function audit(c: Ctx, action: string, targetType: string, targetId: string, taskName?: string): void {
  recordAudit(c.a, {
    username: c.caller.Username,
    ip: c.req.remoteAddress,
    action,
    targetType,
    targetId,
    ...(taskName !== undefined ? { taskName } : {}),
    time: nowMs(c.rt.state),
  });
}

function adminOnly(c: Ctx, what: string): ApiResponse | undefined {
  return c.caller.IsAdmin ? undefined : err(403, `${what} requires membership of the administrators user group`);
}

/** The JSON body of a write, or the error to answer (415 wrong media type, 400 bad JSON). */
function jsonBody(c: Ctx): { ok: true; value: unknown } | { ok: false; response: ApiResponse } {
  if (c.req.body.length > 0 && !isJsonRequest(c.req)) return { ok: false, response: err(415, 'the body must be application/json') };
  const parsed = parseJsonBody(c.req);
  if (!parsed.ok) return { ok: false, response: err(400, parsed.detail) };
  return { ok: true, value: parsed.value };
}

function invalid(errors: readonly FieldError[]): ApiResponse {
  const first = errors[0];
  const detail = first
    ? `${first.field ? `${first.field}: ` : ''}${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`
    : 'invalid input';
  return err(422, detail, errors);
}

function sameName(a: Json | undefined, b: string): boolean {
  return typeof a === 'string' && a.toLowerCase() === b.toLowerCase();
}

/** The caller's rights on one resource group: the union over their user groups' ACLs. */
function groupRights(a: AutomationState, user: AutomationUser, group: string): { any: boolean; perms: Record<AclPermission, boolean> } {
  const perms = Object.fromEntries(ACL_PERMISSION_KEYS.map((k) => [k, false])) as Record<AclPermission, boolean>;
  let any = false;
  for (const acl of a.acls) {
    if (!sameName(acl.ResourceGroupName, group)) continue;
    if (!user.MemberOf.some((g) => g === acl.UserGroupName)) continue;
    any = true;
    for (const k of ACL_PERMISSION_KEYS) if (acl.Permissions[k] === 1) perms[k] = true;
  }
  return { any, perms };
}

interface TaskAccess extends TaskRights {
  readonly see: boolean;
}

function taskAccess(a: AutomationState, user: AutomationUser, task: JsonObject): TaskAccess {
  if (user.IsAdmin) return { see: true, edit: true, addEditDelete: true, run: true };
  const groups = Array.isArray(task.Group) ? task.Group.filter((g): g is string => typeof g === 'string') : [];
  const rights = groups.map((g) => groupRights(a, user, g));
  return {
    see: rights.some((r) => r.any),
    edit: rights.some((r) => r.perms.TaskEditExisting),
    addEditDelete: rights.some((r) => r.perms.TaskAddEditDelete),
    run: rights.some((r) => r.perms.TaskRun),
  };
}

/** Answer a §4.1 list: query checked (422), mask applied on `nameOf`, paged, fields picked. */
function listResponse<T>(
  c: Ctx,
  items: readonly T[],
  nameOf: (t: T) => string,
  render: (t: T, q: AutomationListQuery) => Json,
  maskParam = 'name',
  sortField = 'Name',
  visible?: (t: T) => boolean,
): ApiResponse {
  const q = parseAutomationListQuery(c.req.query, maskParam);
  if (!q.ok) return invalid(q.errors);
  const mask = q.value.mask;
  // The whole list is sorted (and its sort reused), then what the caller may see is kept: a
  // stable sort keeps the order sorting the kept items alone gives.
  const sorted = sortedByName(items, nameOf);
  const hits =
    mask === undefined && visible === undefined
      ? sorted
      : sorted.filter((h) => (mask === undefined || matchesNameMask(h.name, mask)) && (visible?.(h.item) ?? true));
  return jsonResponse(
    200,
    automationPage(hits, q.value, sortField, c.v['automation.envelope'], (h) => render(h.item, q.value)),
  );
}

/** An item of a list with its name, as sorted for a list answer. */
interface NamedHit<T> {
  readonly item: T;
  readonly name: string;
  readonly lower: string;
}

/**
 * The last sort of each list, with the items and names it was made of: a paged read of a big list
 * asks once per page, and sorting 231,000 tasks per page made the emulator, not the client, the
 * bench's limit (issue 29: 210 s of its CPU at 300,000 objects). Reused only while every item is
 * the same object under the same name (a check in one pass); anything else sorts again.
 */
const lastSorts = new WeakMap<object, { readonly items: readonly unknown[]; readonly names: readonly string[]; readonly hits: readonly NamedHit<unknown>[] }>();

function sortedByName<T>(items: readonly T[], nameOf: (t: T) => string): readonly NamedHit<T>[] {
  const last = lastSorts.get(items);
  if (last !== undefined && isUnchanged(items, nameOf, last)) return last.hits as readonly NamedHit<T>[];
  const names = items.map(nameOf);
  // Lower-cased once per item: compareText lower-cases both names per comparison (77,000 tasks: 2.6 million a page).
  // Stable, so filtering by a mask after sorting gives the order sorting the matches gives.
  const hits = items
    .map((item, i) => ({ item, name: names[i]!, lower: names[i]!.toLowerCase() }))
    .sort((x, y) => (x.lower < y.lower ? -1 : x.lower > y.lower ? 1 : compareText(x.name, y.name)));
  lastSorts.set(items, { items: [...items], names, hits });
  return hits;
}

/** Every item the same object under the same name as at the last sort; one pass, nothing allocated (it runs per page). */
function isUnchanged<T>(
  items: readonly T[],
  nameOf: (t: T) => string,
  last: { readonly items: readonly unknown[]; readonly names: readonly string[] },
): boolean {
  if (last.items.length !== items.length) return false;
  for (let i = 0; i < items.length; i++) if (items[i] !== last.items[i] || nameOf(items[i]!) !== last.names[i]) return false;
  return true;
}

function simpleList(c: Ctx, items: readonly JsonObject[]): ApiResponse {
  return listResponse(
    c,
    items,
    (i) => String(i.Name ?? ''),
    (i, q) => pickFields(encodeObjectId(i, c.v), q.fields),
  );
}

function simpleGet(c: Ctx, items: readonly JsonObject[], id: string, what: string): ApiResponse {
  const found = items.find((i) => i.ID === id);
  return found ? jsonResponse(200, encodeObjectId(found, c.v)) : err(404, `no ${what} has ID ${id}`);
}

// ---------------------------------------------------------------------------------------------
// PGP keys, SSH keys, SSL certificates (rules 190–194)

/** A §4.1 list; SSL certificates are matched on `issuer` and ordered by issuer (A §4.1). */
function credentialList(c: Ctx, list: CredentialList): ApiResponse {
  const items = c.a.credentials?.[list] ?? [];
  const ssl = list === 'sslCerts';
  return listResponse(
    c,
    items,
    (i) => credentialSortName(list, i),
    (i, q) => pickFields(encodeCredential(list, encodeObjectId(i, c.v), c.v), q.fields),
    ssl ? 'issuer' : 'name',
    ssl ? 'Issuer' : 'Name',
  );
}

/** One credential; a certificate by its thumbprint (any case), a key by ID. */
function credentialGet(c: Ctx, list: CredentialList, id: string): ApiResponse {
  const items = c.a.credentials?.[list] ?? [];
  const found = items.find((i) => String(i.ID).toLowerCase() === id.toLowerCase());
  const what = list === 'pgpKeys' ? 'PGP key' : list === 'sshKeys' ? 'SSH key' : 'SSL certificate';
  return found ? jsonResponse(200, encodeCredential(list, encodeObjectId(found, c.v), c.v)) : err(404, `no ${what} has ID ${id}`);
}

// ---------------------------------------------------------------------------------------------
// Tasks

function viewTask(c: Ctx, task: JsonObject): JsonObject {
  return renderTask(task, c.v, taskAccess(c.a, c.caller, task));
}

function findVisibleTask(c: Ctx, id: string): JsonObject | undefined {
  const task = c.a.tasks.find((t) => t.ID === id);
  return task && taskAccess(c.a, c.caller, task).see ? task : undefined;
}

function listTasks(c: Ctx): ApiResponse {
  return listResponse(
    c,
    c.a.tasks,
    (t) => String(t.Name),
    (t, q) => pickFields(viewTask(c, t), q.fields),
    'name',
    'Name',
    // An administrator sees every task: no per-task check of the whole list on each page.
    c.caller.IsAdmin ? undefined : (t) => taskAccess(c.a, c.caller, t).see,
  );
}

function getTask(c: Ctx, p: Params): ApiResponse {
  const task = findVisibleTask(c, p.id!);
  return task ? jsonResponse(200, viewTask(c, task)) : err(404, `no task has ID ${p.id!}`);
}

function nameTaken(c: Ctx, name: string, exceptId?: string): boolean {
  // sameName's comparison with the name lowered once: every create scans every task.
  const wanted = name.toLowerCase();
  return c.a.tasks.some((t) => t.ID !== exceptId && typeof t.Name === 'string' && t.Name.toLowerCase() === wanted);
}

/** The answer to a task write in the `automation.taskAnswer` reading: the task, `{ID}` or no body (a PUT then answers 204). */
function taskAnswer(c: Ctx, status: 200 | 201, task: JsonObject): ApiResponse {
  const form = c.v['automation.taskAnswer'];
  switch (form) {
    case 'task':
      return jsonResponse(status, viewTask(c, task));
    case 'id':
      return jsonResponse(status, { ID: encodeValue('id', task.ID ?? '', c.v) });
    case 'empty':
      return emptyResponse(status === 201 ? 201 : 204);
    default: {
      const never: never = form;
      throw new Error(`unknown taskAnswer form ${String(never)}`);
    }
  }
}

/** A task body decoded from the variants' forms and checked, or the 422 to answer. */
function readTaskBody(c: Ctx, mode: 'create' | 'update', existing?: JsonObject): { ok: true; task: JsonObject } | { ok: false; response: ApiResponse } {
  const body = jsonBody(c);
  if (!body.ok) return body;
  const decoded = decodeTask(body.value, c.v);
  const checked = normalizeTask(decoded.value, { state: c.a, variants: c.v, mode, ...(existing ? { existing } : {}) });
  if (checked.ok && decoded.errors.length === 0) return checked;
  return { ok: false, response: invalid(withDecodeErrors(decoded.errors, checked.ok ? [] : checked.errors)) };
}

function createTask(c: Ctx): ApiResponse {
  const checked = readTaskBody(c, 'create');
  if (!checked.ok) return checked.response;
  const groups = checked.task.Group as string[];
  if (!c.caller.IsAdmin) {
    if (groups.length === 0) return invalid([{ field: 'Group', rejected: '', message: 'a non-admin caller must name the resource groups of the task' }]);
    const denied = groups.filter((g) => !groupRights(c.a, c.caller, g).perms.TaskAddEditDelete);
    if (denied.length > 0) return err(403, `you may not add tasks to resource group ${denied.join(', ')} (needs TaskAddEditDelete)`);
  }
  const name = String(checked.task.Name);
  if (nameTaken(c, name)) return err(409, `a task named ${name} already exists`);
  const task = orderTaskKeys({ ...checked.task, ID: allocateId(c.a) });
  c.a.tasks.push(task);
  audit(c, 'Add', 'Task', String(task.ID), name);
  return taskAnswer(c, 201, task);
}

function updateTask(c: Ctx, p: Params): ApiResponse {
  const id = p.id!;
  const existing = findVisibleTask(c, id);
  if (!existing) return err(404, `no task has ID ${id}`);
  if (!taskAccess(c.a, c.caller, existing).edit) return err(403, `you may not edit task ${String(existing.Name)} (needs TaskEditExisting)`);
  const checked = readTaskBody(c, 'update', existing);
  if (!checked.ok) return checked.response;
  const name = String(checked.task.Name);
  if (nameTaken(c, name, id)) return err(409, `a task named ${name} already exists`);
  const task = orderTaskKeys({ ...checked.task, ID: id });
  c.a.tasks[c.a.tasks.indexOf(existing)] = task;
  audit(c, 'Edit', 'Task', id, name);
  return taskAnswer(c, 200, task);
}

function deleteTask(c: Ctx, p: Params): ApiResponse {
  const id = p.id!;
  const existing = findVisibleTask(c, id);
  if (!existing) return err(404, `no task has ID ${id}`);
  if (!taskAccess(c.a, c.caller, existing).addEditDelete) return err(403, `you may not delete task ${String(existing.Name)} (needs TaskAddEditDelete)`);
  c.a.tasks.splice(c.a.tasks.indexOf(existing), 1);
  audit(c, 'Delete', 'Task', id, String(existing.Name));
  return emptyResponse(204);
}

function startTask(c: Ctx, p: Params): ApiResponse {
  const id = p.id!;
  const task = findVisibleTask(c, id);
  if (!task) return err(404, `no task has ID ${id}`);
  if (!taskAccess(c.a, c.caller, task).run) return err(403, `you may not run task ${String(task.Name)} (needs TaskRun)`);
  const body = jsonBody(c);
  if (!body.ok) return body.response;
  if (body.value !== undefined && (!isJsonObject(body.value) || !Object.values(body.value).every((v) => typeof v === 'string'))) {
    return invalid([{ field: '', rejected: showRejected(body.value), message: 'the body is a map of parameter names to string values' }]);
  }
  const start = addRun(c.rt.state, task, { scheduled: false });
  audit(c, 'Run', 'Task', id, String(task.Name));
  return jsonResponse(200, { nominalStart: start });
}

function stopTask(c: Ctx, p: Params): ApiResponse {
  const id = p.id!;
  const task = findVisibleTask(c, id);
  if (!task) return err(404, `no task has ID ${id}`);
  if (!taskAccess(c.a, c.caller, task).run) return err(403, `you may not stop task ${String(task.Name)} (needs TaskRun)`);
  const body = jsonBody(c);
  if (!body.ok) return body.response;
  const ns = isJsonObject(body.value) ? body.value.nominalStart : undefined;
  if (typeof ns !== 'string' || ns === '') return invalid([{ field: 'nominalStart', rejected: showRejected(ns), message: 'nominalStart is required' }]);
  settleRuns(c.rt.state);
  const run = c.a.runs.find((r) => r.TaskID === id && r.NominalStart === ns && r.Status === 'Running');
  if (!run) return err(404, `task ${String(task.Name)} has no running instance started at ${ns}`);
  run.Status = 'Stopped';
  audit(c, 'Stop', 'Task', id, String(task.Name));
  return emptyResponse(200);
}

function listRunning(c: Ctx): ApiResponse {
  settleRuns(c.rt.state);
  const runs = c.a.runs
    .filter((r) => r.Status === 'Running' && findVisibleTask(c, r.TaskID) !== undefined)
    .sort((x, y) => compareText(x.TaskName, y.TaskName) || compareText(x.NominalStart, y.NominalStart));
  return listResponse(
    c,
    runs,
    (r) => r.TaskName,
    (r, q) => pickFields(runningView(r, c.v), q.fields),
    'name',
    'TaskName',
  );
}

function schedulerStatus(c: Ctx): ApiResponse {
  const form = c.v['automation.scheduler'];
  switch (form) {
    case 'enabled':
      return jsonResponse(200, { enabled: c.a.schedulerEnabled });
    case 'Enabled':
      return jsonResponse(200, { Enabled: c.a.schedulerEnabled });
    case 'status':
      return jsonResponse(200, { status: c.a.schedulerEnabled ? 'running' : 'stopped' });
    default: {
      const never: never = form;
      throw new Error(`unknown scheduler form ${String(never)}`);
    }
  }
}

function setScheduler(c: Ctx, p: Params): ApiResponse {
  const action = p.action!;
  if (action !== 'start' && action !== 'stop') return err(404, `no scheduler action ${action}; use start or stop`);
  const denied = adminOnly(c, 'starting or stopping the scheduler');
  if (denied) return denied;
  c.a.schedulerEnabled = action === 'start';
  audit(c, action === 'start' ? 'Start' : 'Stop', 'Scheduler', '');
  return emptyResponse(204);
}

// ---------------------------------------------------------------------------------------------
// Hosts, scripts, date lists, global parameters

/** A host as REST shows it: every password field left out. */
function renderHost(c: Ctx, h: HostRecord): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(h.fields)) if (!/password$/i.test(k)) out[k] = v;
  return encodeObjectId(out, c.v);
}

function listHosts(c: Ctx): ApiResponse {
  const type = c.req.query.get('type');
  const hosts = c.a.hosts.filter((h) => type === null || h.type.toLowerCase() === type.toLowerCase());
  return listResponse(
    c,
    hosts,
    (h) => String(h.fields.Name ?? ''),
    (h, q) => ({ [h.type]: pickFields(renderHost(c, h), q.fields) }),
  );
}

function getHost(c: Ctx, p: Params): ApiResponse {
  const h = c.a.hosts.find((x) => x.fields.ID === p.id);
  if (!h) return err(404, `no host has ID ${p.id!}`);
  const form = c.v['automation.hostGet'];
  switch (form) {
    case 'flat':
      return jsonResponse(200, renderHost(c, h));
    case 'wrapped':
      return jsonResponse(200, { [h.type]: renderHost(c, h) });
    default: {
      const never: never = form;
      throw new Error(`unknown hostGet form ${String(never)}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Resource groups, user groups, ACLs

function visibleResourceGroup(c: Ctx, name: string): boolean {
  return c.caller.IsAdmin || groupRights(c.a, c.caller, name).any;
}

/** Members of every resource group by lower-case group name, in one pass over tasks, hosts and scripts. */
function groupMembers(c: Ctx): Map<string, JsonObject[]> {
  const members = new Map<string, JsonObject[]>();
  const add = (o: JsonObject, member: JsonObject): void => {
    if (!Array.isArray(o.Group)) return;
    const seen = new Set<string>();
    for (const g of o.Group) {
      if (typeof g !== 'string' || seen.has(g.toLowerCase())) continue;
      seen.add(g.toLowerCase());
      const list = members.get(g.toLowerCase()) ?? [];
      list.push(member);
      members.set(g.toLowerCase(), list);
    }
  };
  for (const t of c.a.tasks) add(t, { t: 'Task', ID: t.ID ?? '', Name: t.Name ?? '' });
  for (const h of c.a.hosts) add(h.fields, { t: 'Host', ID: h.fields.ID ?? '', Name: h.fields.Name ?? '' });
  for (const s of c.a.customScripts) add(s, { t: 'CustomScript', ID: s.ID ?? '', Name: s.Name ?? '' });
  return members;
}

function renderResourceGroup(c: Ctx, rg: JsonObject, members: Map<string, JsonObject[]>): JsonObject {
  const name = String(rg.Name);
  // groupMembers adds tasks, then hosts, then scripts: the order the members list has always had.
  return { Name: name, Notes: rg.Notes ?? '', members: (members.get(name.toLowerCase()) ?? []).map((m) => encodeObjectId(m, c.v)) };
}

function listResourceGroups(c: Ctx): ApiResponse {
  const groups = c.a.resourceGroups.filter((g) => visibleResourceGroup(c, String(g.Name)));
  const members = groupMembers(c);
  return listResponse(
    c,
    groups,
    (g) => String(g.Name),
    (g, q) => pickFields(renderResourceGroup(c, g, members), q.fields),
  );
}

function getResourceGroup(c: Ctx, p: Params): ApiResponse {
  const rg = c.a.resourceGroups.find((g) => sameName(g.Name, p.name!));
  if (!rg || !visibleResourceGroup(c, String(rg.Name))) return err(404, `no resource group is named ${p.name!}`);
  return jsonResponse(200, renderResourceGroup(c, rg, groupMembers(c)));
}

function renderUserGroup(c: Ctx, g: JsonObject): JsonObject {
  const group = { Name: g.Name ?? '', Type: g.Type ?? 'local', Description: g.Description ?? '' };
  const members = c.a.users.filter((u) => u.MemberOf.includes(String(g.Name))).map((u) => u.Username);
  const form = c.v['automation.userGroupMembers'];
  switch (form) {
    case 'Members':
      return { ...group, Members: members };
    case 'objects': {
      const users = members.map((Username) => ({ Username }));
      return { ...group, Users: users.length === 1 ? users[0]! : users };
    }
    case 'absent':
      return group;
    default: {
      const never: never = form;
      throw new Error(`unknown user-group members form ${String(never)}`);
    }
  }
}

function listUserGroups(c: Ctx): ApiResponse {
  const denied = adminOnly(c, 'reading user groups');
  if (denied) return denied;
  return listResponse(
    c,
    c.a.userGroups,
    (g) => String(g.Name),
    (g, q) => pickFields(renderUserGroup(c, g), q.fields),
  );
}

function getUserGroup(c: Ctx, p: Params): ApiResponse {
  const denied = adminOnly(c, 'reading user groups');
  if (denied) return denied;
  const type = c.req.query.get('type') ?? 'local';
  if (type !== 'local' && type !== 'remote') return invalid([{ field: 'type', rejected: type, message: 'type must be local or remote' }]);
  const g = c.a.userGroups.find((x) => x.Name === p.name && (x.Type ?? 'local') === type);
  return g ? jsonResponse(200, renderUserGroup(c, g)) : err(404, `no ${type} user group is named ${p.name!}`);
}

function visibleAcl(c: Ctx, acl: AclRecord): boolean {
  return c.caller.IsAdmin || c.caller.MemberOf.includes(acl.UserGroupName);
}

function listAcls(c: Ctx): ApiResponse {
  const rg = c.req.query.get('resourceGroupName');
  const ug = c.req.query.get('userGroupName');
  const acls = c.a.acls.filter((x) => visibleAcl(c, x) && (rg === null || sameName(x.ResourceGroupName, rg)) && (ug === null || sameName(x.UserGroupName, ug)));
  const q = parseAutomationListQuery(c.req.query);
  if (!q.ok) return invalid(q.errors);
  const sorted = [...acls].sort((x, y) => compareText(x.ResourceGroupName, y.ResourceGroupName) || compareText(x.UserGroupName, y.UserGroupName));
  return jsonResponse(
    200,
    automationPage(sorted, q.value, 'ResourceGroupName', c.v['automation.envelope'], (x) => pickFields(encodeAcl(x, c.v), q.value.fields)),
  );
}

function getAcl(c: Ctx, p: Params): ApiResponse {
  const acl = c.a.acls.find((x) => x.ACLID === p.id);
  return acl && visibleAcl(c, acl) ? jsonResponse(200, encodeAcl(acl, c.v)) : err(404, `no ACL has ID ${p.id!}`);
}

/** An ACL body decoded from the variants' forms (with the errors of forms refused), or the error to answer. */
function readAclBody(c: Ctx): { ok: true; value: JsonObject; refused: readonly FieldError[] } | { ok: false; response: ApiResponse } {
  const body = jsonBody(c);
  if (!body.ok) return body;
  if (!isJsonObject(body.value))
    return { ok: false, response: invalid([{ field: '', rejected: showRejected(body.value), message: 'the body must be an ACL object' }]) };
  const decoded = decodeAcl(body.value, c.v);
  return { ok: true, value: decoded.value, refused: decoded.errors };
}

/** Merge supplied permission keys over `base`, checking keys, 0/1 values and the edit/add rule. */
function mergePermissions(value: Json | undefined, base: Record<AclPermission, 0 | 1>, errors: FieldError[]): Record<AclPermission, 0 | 1> {
  const out = { ...base };
  if (value !== undefined) {
    if (!isJsonObject(value)) errors.push({ field: 'Permissions', rejected: showRejected(value), message: 'must be an object of 0/1 permissions' });
    else
      for (const [k, v] of Object.entries(value)) {
        if (!(ACL_PERMISSION_KEYS as readonly string[]).includes(k))
          errors.push({ field: `Permissions.${k}`, rejected: showRejected(v), message: `unknown permission; one of ${ACL_PERMISSION_KEYS.join(', ')}` });
        else if (v !== 0 && v !== 1) errors.push({ field: `Permissions.${k}`, rejected: showRejected(v), message: 'must be 0 or 1' });
        else out[k as AclPermission] = v;
      }
  }
  if (errors.length === 0 && out.TaskAddEditDelete === 1 && out.TaskEditExisting === 0) {
    errors.push({ field: 'Permissions.TaskEditExisting', rejected: '0', message: 'TaskEditExisting cannot be disabled while TaskAddEditDelete is enabled' });
  }
  return out;
}

function createAcl(c: Ctx): ApiResponse {
  const denied = adminOnly(c, 'adding an ACL');
  if (denied) return denied;
  const body = readAclBody(c);
  if (!body.ok) return body.response;
  const b = body.value;
  const errors: FieldError[] = [];
  const rg = c.a.resourceGroups.find((g) => typeof b.ResourceGroupName === 'string' && sameName(g.Name, b.ResourceGroupName));
  if (!rg) errors.push({ field: 'ResourceGroupName', rejected: showRejected(b.ResourceGroupName), message: 'no resource group has this name' });
  const ug = c.a.userGroups.find((g) => typeof b.UserGroupName === 'string' && sameName(g.Name, b.UserGroupName));
  if (!ug) errors.push({ field: 'UserGroupName', rejected: showRejected(b.UserGroupName), message: 'no user group has this name' });
  const zero = Object.fromEntries(ACL_PERMISSION_KEYS.map((k) => [k, 0])) as Record<AclPermission, 0 | 1>;
  const perms = mergePermissions(b.Permissions, zero, errors);
  if (errors.length > 0 || body.refused.length > 0 || !rg || !ug) return invalid(withDecodeErrors(body.refused, errors));
  const rgName = String(rg.Name);
  const ugName = String(ug.Name);
  if (c.a.acls.some((x) => sameName(x.ResourceGroupName, rgName) && sameName(x.UserGroupName, ugName))) {
    return err(409, `an ACL for resource group ${rgName} and user group ${ugName} already exists`);
  }
  const acl: AclRecord = { ACLID: allocateId(c.a), ResourceGroupName: rgName, UserGroupName: ugName, Permissions: perms };
  c.a.acls.push(acl);
  audit(c, 'Add', 'ACL', acl.ACLID);
  return jsonResponse(201, encodeAcl(acl, c.v));
}

function updateAcl(c: Ctx, p: Params): ApiResponse {
  const denied = adminOnly(c, 'updating an ACL');
  if (denied) return denied;
  const acl = c.a.acls.find((x) => x.ACLID === p.id);
  if (!acl) return err(404, `no ACL has ID ${p.id!}`);
  const body = readAclBody(c);
  if (!body.ok) return body.response;
  const b = body.value;
  const errors: FieldError[] = [];
  for (const k of ['ACLID', 'UserGroupName', 'ResourceGroupName'] as const) {
    if (b[k] !== undefined && b[k] !== acl[k])
      errors.push({ field: k, rejected: showRejected(b[k]), message: `must equal the ACL's ${k} (${acl[k]}) or be omitted` });
  }
  for (const k of Object.keys(b)) {
    if (!['ACLID', 'UserGroupName', 'ResourceGroupName', 'Permissions'].includes(k))
      errors.push({ field: k, rejected: showRejected(b[k]), message: 'is not an ACL field' });
  }
  const perms = mergePermissions(b.Permissions, acl.Permissions, errors);
  if (errors.length > 0 || body.refused.length > 0) return invalid(withDecodeErrors(body.refused, errors));
  acl.Permissions = perms;
  audit(c, 'Edit', 'ACL', acl.ACLID);
  return jsonResponse(200, encodeAcl(acl, c.v));
}

function deleteAcl(c: Ctx, p: Params): ApiResponse {
  const denied = adminOnly(c, 'deleting an ACL');
  if (denied) return denied;
  const i = c.a.acls.findIndex((x) => x.ACLID === p.id);
  if (i < 0) return err(404, `no ACL has ID ${p.id!}`);
  c.a.acls.splice(i, 1);
  audit(c, 'Delete', 'ACL', p.id!);
  return emptyResponse(204);
}

// ---------------------------------------------------------------------------------------------
// Info, config, reports

function info(c: Ctx): ApiResponse {
  const version = NAMED_SETS[c.rt.state.profile].details.appVersion;
  return jsonResponse(200, {
    appVersion: version,
    appBuildNumber: `${version}.7`,
    appBuildTimestamp: '2025-03-14T09:00:00Z',
    centralApiVersion: 'v1',
    isAdmin: c.caller.IsAdmin,
    username: c.caller.Username,
    license: {},
    serverTimezoneInfo: serverTimezoneInfo(c.v['automation.timeZone']),
  });
}

/** `/info`'s zone in the form of `automation.timeZone` (A-30); the three named zones are the same (UTC+1, DST in summer). */
function serverTimezoneInfo(form: Variants['automation.timeZone']): JsonObject {
  switch (form) {
    case 'utc':
      return { timeZoneName: 'UTC', timeZoneBias: '0', daylightBias: '0' };
    case 'windows':
      return { timeZoneName: 'W. Europe Standard Time', timeZoneBias: '-60', daylightBias: '-60' };
    case 'iana':
      return { timeZoneName: 'Europe/Berlin', timeZoneBias: '-60', daylightBias: '-60' };
    case 'bias':
      return { timeZoneName: 'Mitteleuropäische Zeit', timeZoneBias: '-60', daylightBias: '-60' };
    default: {
      const never: never = form;
      throw new Error(`unknown timeZone form ${String(never)}`);
    }
  }
}

function getConfig(c: Ctx): ApiResponse {
  const denied = adminOnly(c, 'exporting the configuration');
  if (denied) return denied;
  const full = (): string => exportConfig(c.a, NAMED_SETS[c.rt.state.profile].details.appVersion);
  return { status: 200, body: hostileExport(c.v['automation.export'], full), contentType: 'application/xml; charset=utf-8' };
}

function putConfig(c: Ctx): ApiResponse {
  const denied = adminOnly(c, 'importing the configuration');
  if (denied) return denied;
  const type = (c.req.headers['content-type'] ?? '').toLowerCase();
  if (!type.startsWith('application/xml') && !type.startsWith('text/xml')) return err(415, 'the configuration is imported as application/xml');
  const imported = importConfig(c.req.body.toString('utf8'), c.v['automation.hostType']);
  if (!imported.ok) return invalid(imported.errors);
  // Ids never count backwards, so an object created before a restore never shares an id with a later one.
  Object.assign(c.a, imported.config, { nextId: Math.max(c.a.nextId, imported.config.nextId) });
  audit(c, 'Import', 'Config', '');
  return emptyResponse(204);
}

function auditReport(c: Ctx): ApiResponse {
  const body = jsonBody(c);
  if (!body.ok) return body.response;
  const q = parseAuditQuery(body.value);
  if (!q.ok) return invalid(q.errors);
  const records = c.caller.IsAdmin ? c.a.audit : c.a.audit.filter((r) => r.Username === c.caller.Username);
  const items = runAuditQuery(records, q.value);
  return jsonResponse(
    200,
    c.v['automation.envelope'] === 'bare' ? items : { items, sorting: [{ sortField: q.value.orderBy, sortDirection: q.value.descending ? 'desc' : 'asc' }] },
  );
}

const ROUTES: readonly Route<Ctx>[] = [
  { method: 'GET', pattern: '/info', handle: info },
  { method: 'GET', pattern: '/config', handle: getConfig },
  { method: 'PUT', pattern: '/config', handle: putConfig },
  { method: 'GET', pattern: '/tasks', handle: listTasks },
  { method: 'POST', pattern: '/tasks', handle: createTask },
  { method: 'GET', pattern: '/tasks/running', handle: listRunning },
  { method: 'GET', pattern: '/tasks/scheduler', handle: schedulerStatus },
  { method: 'PUT', pattern: '/tasks/scheduler/:action', handle: setScheduler },
  { method: 'GET', pattern: '/tasks/:id', handle: getTask },
  { method: 'PUT', pattern: '/tasks/:id', handle: updateTask },
  { method: 'DELETE', pattern: '/tasks/:id', handle: deleteTask },
  { method: 'POST', pattern: '/tasks/:id/start', handle: startTask },
  { method: 'POST', pattern: '/tasks/:id/stop', handle: stopTask },
  { method: 'GET', pattern: '/hosts', handle: listHosts },
  { method: 'GET', pattern: '/hosts/:id', handle: getHost },
  { method: 'GET', pattern: '/customscripts', handle: (c) => simpleList(c, c.a.customScripts) },
  { method: 'GET', pattern: '/customscripts/:id', handle: (c, p) => simpleGet(c, c.a.customScripts, p.id!, 'custom script') },
  { method: 'GET', pattern: '/standardscripts', handle: (c) => simpleList(c, c.a.standardScripts) },
  { method: 'GET', pattern: '/standardscripts/:id', handle: (c, p) => simpleGet(c, c.a.standardScripts, p.id!, 'standard script') },
  { method: 'GET', pattern: '/datelists', handle: (c) => simpleList(c, c.a.dateLists) },
  { method: 'GET', pattern: '/datelists/:id', handle: (c, p) => simpleGet(c, c.a.dateLists, p.id!, 'date list') },
  { method: 'GET', pattern: '/globalparameters', handle: (c) => simpleList(c, c.a.globalParameters) },
  { method: 'GET', pattern: '/globalparameters/:id', handle: (c, p) => simpleGet(c, c.a.globalParameters, p.id!, 'global parameter') },
  { method: 'GET', pattern: '/resourcegroups/acls', handle: listAcls },
  { method: 'POST', pattern: '/resourcegroups/acls', handle: createAcl },
  { method: 'GET', pattern: '/resourcegroups/acls/:id', handle: getAcl },
  { method: 'PUT', pattern: '/resourcegroups/acls/:id', handle: updateAcl },
  { method: 'DELETE', pattern: '/resourcegroups/acls/:id', handle: deleteAcl },
  { method: 'GET', pattern: '/resourcegroups', handle: listResourceGroups },
  { method: 'GET', pattern: '/resourcegroups/:name', handle: getResourceGroup },
  { method: 'GET', pattern: '/usergroups', handle: listUserGroups },
  { method: 'GET', pattern: '/usergroups/:name', handle: getUserGroup },
  { method: 'POST', pattern: '/reports/audit', handle: auditReport },
  { method: 'GET', pattern: '/pgpkeys', handle: (c) => credentialList(c, 'pgpKeys') },
  { method: 'GET', pattern: '/pgpkeys/:id', handle: (c, p) => credentialGet(c, 'pgpKeys', p.id!) },
  { method: 'GET', pattern: '/sshkeys', handle: (c) => credentialList(c, 'sshKeys') },
  { method: 'GET', pattern: '/sshkeys/:id', handle: (c, p) => credentialGet(c, 'sshKeys', p.id!) },
  { method: 'GET', pattern: '/sslcerts', handle: (c) => credentialList(c, 'sslCerts') },
  { method: 'GET', pattern: '/sslcerts/:id', handle: (c, p) => credentialGet(c, 'sslCerts', p.id!) },
];
