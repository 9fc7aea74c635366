import { fileURLToPath } from 'node:url';
import type { EmulatorOptions, RunningEmulator, Variants } from '../../src/emulator/index.js';
import { loadSeedFile, startEmulator } from '../../src/emulator/index.js';
import type { JsonObject } from '../../src/emulator/json.js';
import type {
  AclRecord,
  AutomationUser,
  FolderAclEntry,
  HostRecord,
  TokenRecord,
  TransferFolder,
  TransferGroup,
  TransferAuditRecord,
  TransferUser,
  TransferUserCore,
} from '../../src/emulator/state.js';
import { newTransferUser, nowMs, settleRuns } from '../../src/emulator/state.js';
import { addRun } from '../../src/emulator/task-runs.js';

/*
 * What a test does to the servers an emulator plays, named by intent: read an object as the server
 * holds it, change one by hand as an administrator would in the admin UI, move the server's clock.
 * Tests use these instead of reaching into `emulator.state`, so a change to how the emulator stores
 * an object is made here once.
 *
 * Reads answer copies (a test cannot change the server by editing what it read) and include what
 * the REST API never shows (secret parameter values, host and step passwords). Changes by hand
 * bypass the REST API: no request is logged and no audit record is written (the emulator keeps
 * none for them; a test that needs one makes its change through the REST API).
 */

/** A task is found by its exact `Name` or by its `ID`. */
export type TaskMatch = { readonly name: string } | { readonly id: string };

function copy<T>(value: T): T {
  return structuredClone(value);
}

function matchesTask(task: JsonObject, match: TaskMatch): boolean {
  return 'name' in match ? task['Name'] === match.name : task['ID'] === match.id;
}

function found<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`emulator test API: no ${what} on the server`);
  return value;
}

// ----------------------------------------------------------------------------- the emulator itself

/** The example estates' seed files (examples/seed): the production servers' and the staging servers'. */
export const EXAMPLE_SEED_FILES = {
  production: fileURLToPath(new URL('../../examples/seed/emulator-seed.json', import.meta.url)),
  staging: fileURLToPath(new URL('../../examples/seed/staging-seed.json', import.meta.url)),
} as const;

/** An emulator on a free loopback port holding an example estate: production's, unless `estate` names staging. */
export function startSeededEmulator(
  options: Omit<EmulatorOptions, 'seed'> & { readonly estate?: keyof typeof EXAMPLE_SEED_FILES } = {},
): Promise<RunningEmulator> {
  const { estate = 'production', ...rest } = options;
  return startEmulator({ ...rest, seed: loadSeedFile(EXAMPLE_SEED_FILES[estate]) });
}

/** The reading of every switch of the register the emulator was started with. */
export function readVariants(emulator: RunningEmulator): Variants {
  return emulator.state.variants;
}

/** The emulator clock (epoch ms): the wall clock plus the offset tests moved it by. */
export function readServerTime(emulator: RunningEmulator): number {
  return nowMs(emulator.state);
}

/** How far tests moved the emulator clock ahead of the wall clock (ms). */
export function readClockOffset(emulator: RunningEmulator): number {
  return emulator.state.clockOffsetMs;
}

/** Moves the emulator clock forward by `ms` (token expiry, timestamps). */
export function advanceClock(emulator: RunningEmulator, ms: number): void {
  emulator.state.clockOffsetMs += ms;
}

/** Sets the emulator clock to `offsetMs` ahead of the wall clock. */
export function setClockOffset(emulator: RunningEmulator, offsetMs: number): void {
  emulator.state.clockOffsetMs = offsetMs;
}

/** Every token either service ever issued (access and refresh; the emulator never forgets one, revoked or expired). */
export function readIssuedTokens(emulator: RunningEmulator): string[] {
  return [...emulator.state.automation.tokens.keys(), ...emulator.state.transfer.tokens.keys()];
}

/** Makes the automation service accept `token` as if it had issued it. */
export function issueAutomationToken(emulator: RunningEmulator, token: string, record: TokenRecord): void {
  emulator.state.automation.tokens.set(token, { ...record });
}

/** The requests that may have changed something since start or the last `resetRequestLog`, as `METHOD /path`: reads and token calls left out. */
export function listWrites(emulator: RunningEmulator): string[] {
  return emulator
    .requestLog()
    .filter((r) => !r.isTokenCall && r.method !== 'GET')
    .map((r) => `${r.method} ${r.path}`);
}

/** Per service: the tokens granted and revoked (POST /token, /token/revoke) since the log was reset. */
export function countTokenCalls(emulator: RunningEmulator): Record<string, { granted: number; revoked: number }> {
  const out: Record<string, { granted: number; revoked: number }> = {};
  for (const r of emulator.requestLog().filter((x) => x.isTokenCall && x.method === 'POST')) {
    const calls = (out[r.service] ??= { granted: 0, revoked: 0 });
    if (r.path.endsWith('/token/revoke')) calls.revoked++;
    else if (r.path.endsWith('/token')) calls.granted++;
  }
  return out;
}

/** How many records the automation service's audit report holds. */
export function countAuditRecords(emulator: RunningEmulator): number {
  return emulator.state.automation.audit.length;
}

// ----------------------------------------------------------------------- automation: what it holds

/** Every task in stored shape (secret parameter values included), or those `keep` accepts. */
export function readTasks(emulator: RunningEmulator, keep: (task: JsonObject) => boolean = () => true): JsonObject[] {
  return copy(emulator.state.automation.tasks.filter(keep));
}

/** The task with this name or id, or undefined. */
export function readTask(emulator: RunningEmulator, match: TaskMatch): JsonObject | undefined {
  return copy(emulator.state.automation.tasks.find((t) => matchesTask(t, match)));
}

/** Every resource-group ACL. */
export function readAcls(emulator: RunningEmulator): AclRecord[] {
  return copy(emulator.state.automation.acls);
}

/** The ACL of a resource group for a user group, or undefined. */
export function readAcl(emulator: RunningEmulator, resourceGroup: string, userGroup: string): AclRecord | undefined {
  return copy(emulator.state.automation.acls.find((a) => a.ResourceGroupName === resourceGroup && a.UserGroupName === userGroup));
}

/** The ACL with this ACLID, or undefined. */
export function readAclById(emulator: RunningEmulator, aclId: string): AclRecord | undefined {
  return copy(emulator.state.automation.acls.find((a) => a.ACLID === aclId));
}

/** Every host (type and fields, passwords included), in the server's order. */
export function readHosts(emulator: RunningEmulator): HostRecord[] {
  return copy(emulator.state.automation.hosts);
}

/** The host with this `Name`, or undefined. */
export function readHost(emulator: RunningEmulator, name: string): HostRecord | undefined {
  return copy(emulator.state.automation.hosts.find((h) => h.fields['Name'] === name));
}

// ------------------------------------------------------------------------- transfer: what it holds

/** Every transfer user. */
export function readTransferUsers(emulator: RunningEmulator): TransferUser[] {
  return copy(emulator.state.transfer.users);
}

/** The transfer user with this username, or undefined. */
export function readTransferUser(emulator: RunningEmulator, username: string): TransferUser | undefined {
  return copy(emulator.state.transfer.users.find((u) => u.username === username));
}

/**
 * The transfer service's record of user and group changes made through its REST API (who, what,
 * when), oldest first. The transfer references show no audit endpoint, so only a test can read it.
 */
export function readTransferAudit(emulator: RunningEmulator): TransferAuditRecord[] {
  return copy(emulator.state.transfer.audit);
}

/** Every transfer group. */
export function readTransferGroups(emulator: RunningEmulator): TransferGroup[] {
  return copy(emulator.state.transfer.groups);
}

/** The transfer group with this name, or undefined. */
export function readTransferGroup(emulator: RunningEmulator, name: string): TransferGroup | undefined {
  return copy(emulator.state.transfer.groups.find((g) => g.name === name));
}

/** Every folder (with its ACL entries), or those `keep` accepts. */
export function readFolders(emulator: RunningEmulator, keep: (folder: TransferFolder) => boolean = () => true): TransferFolder[] {
  return copy(emulator.state.transfer.folders.filter(keep));
}

/** The folder at exactly this path, or undefined. */
export function readFolder(emulator: RunningEmulator, path: string): TransferFolder | undefined {
  return copy(emulator.state.transfer.folders.find((f) => f.path === path));
}

// -------------------------------------------------------------------- automation: changes by hand

/** Adds an automation login (the REST API cannot create users). */
export function addAutomationUser(emulator: RunningEmulator, user: AutomationUser): void {
  emulator.state.automation.users.push({ ...user, MemberOf: [...user.MemberOf] });
}

/** Adds a global parameter `{ID, Name, Value}`. */
export function addGlobalParameter(emulator: RunningEmulator, parameter: JsonObject): void {
  emulator.state.automation.globalParameters.push(copy(parameter));
}

/** Edits the stored task with this name or id in place, as the admin UI would. */
export function editTaskByHand(emulator: RunningEmulator, match: TaskMatch, edit: (task: JsonObject) => void): void {
  edit(
    found(
      emulator.state.automation.tasks.find((t) => matchesTask(t, match)),
      `task ${JSON.stringify(match)}`,
    ),
  );
}

/** Deletes every task with this name, as the admin UI would. */
export function deleteTaskByHand(emulator: RunningEmulator, name: string): void {
  emulator.state.automation.tasks = emulator.state.automation.tasks.filter((t) => t['Name'] !== name);
}

/**
 * Starts a run of the task with this name or id, as the scheduler (`scheduled`) or an operator
 * would: it lasts `seconds` of the emulator clock, else the emulator's `runSeconds`, else until
 * stopped. Returns its nominal start.
 */
export function startRunByHand(emulator: RunningEmulator, match: TaskMatch, opts: { readonly scheduled?: boolean; readonly seconds?: number } = {}): string {
  const task = found(
    emulator.state.automation.tasks.find((t) => matchesTask(t, match)),
    `task ${JSON.stringify(match)}`,
  );
  return addRun(emulator.state, task, { scheduled: opts.scheduled === true, ...(opts.seconds !== undefined ? { seconds: opts.seconds } : {}) });
}

/** Ends every run of the task with this name or id now, as if it had completed. */
export function finishRunsByHand(emulator: RunningEmulator, match: TaskMatch): void {
  const task = found(
    emulator.state.automation.tasks.find((t) => matchesTask(t, match)),
    `task ${JSON.stringify(match)}`,
  );
  for (const r of emulator.state.automation.runs) if (r.TaskID === String(task['ID']) && r.Status === 'Running') r.Status = 'Completed';
}

/** The names of the tasks running now on the emulator clock (a run whose time is up has completed). */
export function readRunningTaskNames(emulator: RunningEmulator): string[] {
  settleRuns(emulator.state);
  return emulator.state.automation.runs.filter((r) => r.Status === 'Running').map((r) => r.TaskName);
}

/** Whether the automation scheduler is started. */
export function readSchedulerEnabled(emulator: RunningEmulator): boolean {
  return emulator.state.automation.schedulerEnabled;
}

/** Starts or stops the automation scheduler by hand (no request logged). */
export function setSchedulerByHand(emulator: RunningEmulator, enabled: boolean): void {
  emulator.state.automation.schedulerEnabled = enabled;
}

/** Edits the stored ACL of a resource group for a user group in place. */
export function editAclByHand(emulator: RunningEmulator, resourceGroup: string, userGroup: string, edit: (acl: AclRecord) => void): void {
  edit(
    found(
      emulator.state.automation.acls.find((a) => a.ResourceGroupName === resourceGroup && a.UserGroupName === userGroup),
      `ACL ${resourceGroup} / ${userGroup}`,
    ),
  );
}

/** Edits the stored host with this `Name` in place (its type, its fields). */
export function editHostByHand(emulator: RunningEmulator, name: string, edit: (host: HostRecord) => void): void {
  edit(
    found(
      emulator.state.automation.hosts.find((h) => h.fields['Name'] === name),
      `host ${name}`,
    ),
  );
}

/** Deletes the host with this `Name`. */
export function deleteHostByHand(emulator: RunningEmulator, name: string): void {
  const hosts = emulator.state.automation.hosts;
  hosts.splice(
    hosts.indexOf(
      found(
        hosts.find((h) => h.fields['Name'] === name),
        `host ${name}`,
      ),
    ),
    1,
  );
}

/** Gives host `a` the name of host `b` and `b` that of `a` (their ids stay): a name that moved. */
export function swapHostNames(emulator: RunningEmulator, a: string, b: string): void {
  swapNames(
    emulator.state.automation.hosts.map((h) => h.fields),
    'Name',
    a,
    b,
  );
}

// ---------------------------------------------------------------------- transfer: changes by hand

/** Adds a transfer user (another client created it, or an administrator did); fields left out take a new account's defaults. */
export function addTransferUser(emulator: RunningEmulator, user: TransferUserCore): void {
  emulator.state.transfer.users.push(newTransferUser(user));
}

/** Gives user `a` the username of user `b` and `b` that of `a` (their ids stay). */
export function swapTransferUserNames(emulator: RunningEmulator, a: string, b: string): void {
  swapNames(emulator.state.transfer.users, 'username', a, b);
}

/** Gives group `a` the name of group `b` and `b` that of `a` (their ids stay). */
export function swapTransferGroupNames(emulator: RunningEmulator, a: string, b: string): void {
  swapNames(emulator.state.transfer.groups, 'name', a, b);
}

/**
 * Adds a folder as it is given (id, parent, name and path unchecked), for shapes the REST API will
 * not create, such as a folder named `..`.
 */
export function addFolderByHand(emulator: RunningEmulator, folder: TransferFolder): void {
  emulator.state.transfer.folders.push(copy(folder));
}

/** Edits the stored folder at this path in place (its path and name, its details, its entries). */
export function editFolderByHand(emulator: RunningEmulator, path: string, edit: (folder: TransferFolder) => void): void {
  edit(
    found(
      emulator.state.transfer.folders.find((f) => f.path === path),
      `folder ${path}`,
    ),
  );
}

/** Edits the stored transfer group of this name in place (its members are user ids), bypassing the REST API. */
export function editTransferGroupByHand(emulator: RunningEmulator, name: string, edit: (group: TransferGroup) => void): void {
  edit(
    found(
      emulator.state.transfer.groups.find((g) => g.name === name),
      `group ${name}`,
    ),
  );
}

/** Adds an entry to the ACL of the folder at this path, bypassing the REST API's checks. */
export function addFolderEntryByHand(emulator: RunningEmulator, path: string, entry: FolderAclEntry): void {
  editFolderByHand(emulator, path, (folder) => folder.acl.push(copy(entry)));
}

/** Deletes the folder at this path and every folder below it (the transfer REST API has no folder delete). */
export function deleteFolderByHand(emulator: RunningEmulator, path: string): void {
  found(
    emulator.state.transfer.folders.find((f) => f.path === path),
    `folder ${path}`,
  );
  emulator.state.transfer.folders = emulator.state.transfer.folders.filter((f) => f.path !== path && !f.path.startsWith(`${path}/`));
}

/** Swaps the values of `field` of the items named `a` and `b` (found without regard to case), as a person at the console would. */
function swapNames<T>(items: readonly T[], field: keyof T, a: string, b: string): void {
  const find = (name: string): T =>
    found(
      items.find((x) => String(x[field]).toLowerCase() === name.toLowerCase()),
      `${String(field)} ${name}`,
    );
  const first = find(a);
  const second = find(b);
  const name = first[field];
  first[field] = second[field];
  second[field] = name;
}
