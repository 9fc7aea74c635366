import { expect } from 'vitest';
import { aclKey, folderKey, indexByName } from '../../src/live/model.js';
import type { AutomationLiveState, LiveFolder, LiveScript, LiveState, TransferLiveState } from '../../src/live/model.js';
import { parseManifestFile } from '../../src/manifest/parse.js';
import { getValueVocabulary } from '../../src/manifest/schemas.js';
import type { Manifest } from '../../src/manifest/types.js';
import { validateParsedFiles } from '../../src/manifest/validate.js';
import type { DesiredState } from '../../src/plan/desired.js';
import type { PlanDiagnostic } from '../../src/plan/diagnostics.js';
import type { Plan } from '../../src/plan/model.js';
import { computePlan } from '../../src/plan/compute-plan.js';
import type { ComputePlanInput } from '../../src/plan/compute-plan.js';
import { resolveDesired } from '../../src/plan/resolve-desired.js';
import type { DateList, Host, ResourceGroupAcl, Task } from '../../src/services/automation/types.js';
import type { FolderAclEntry, TransferGroup, TransferUser } from '../../src/services/transfer/types.js';

/** Where in-memory manifests claim to live; diagnostics point here. */
export const MANIFEST_FILE = '/work/manifests/test.yaml';

/** Manifests from YAML text, checked by the real loader (the test fails on a loader error). */
export function manifestsFrom(yaml: string, file = MANIFEST_FILE): Manifest[] {
  const set = validateParsedFiles([parseManifestFile(file, yaml)]);
  expect(set.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return [...set.manifests];
}

/** A task document with the usual envelope around `spec` (YAML, indented by the caller as a block). */
export function taskYaml(name: string, spec: string, extraMetadata = ''): string {
  return `apiVersion: mftops/v1\nkind: Task\nmetadata:\n  name: ${name}\n${extraMetadata}spec:\n${spec}`;
}

export const HOSTS: Host[] = [
  { type: 'SSHFTP', ID: '11', Name: 'payroll-sftp' },
  { type: 'AS2', ID: '12', Name: 'bank-as2' },
  { type: 'siLock', ID: '13', Name: 'xfer' },
  { type: 'Share', ID: '14', Name: 'finance-share' },
];
export const SCRIPTS: LiveScript[] = [
  { ID: '21', Name: 'PGP Encrypt', origin: 'custom' },
  { ID: '22', Name: 'Checksum', origin: 'standard' },
];
export const DATE_LISTS: DateList[] = [{ ID: '31', Name: 'Bank Holidays' }];

/** Automation live state with the catalogs above and the given tasks and ACLs. */
export function automationState(
  options: { tasks?: Task[]; acls?: ResourceGroupAcl[]; userGroups?: string[]; userGroupsReadable?: boolean; hosts?: Host[] } = {},
): AutomationLiveState {
  const acls = options.acls ?? [];
  const userGroups = new Map<string, string>();
  for (const g of [...(options.userGroups ?? ['Finance Operators', 'Auditors']), ...acls.map((a) => a.UserGroupName)]) userGroups.set(g.toLowerCase(), g);
  return {
    info: { appVersion: '2025.1.0' },
    tasks: indexByName(
      options.tasks ?? [],
      (t) => t.Name,
      (t) => t.ID,
    ),
    hosts: indexByName(
      options.hosts ?? HOSTS,
      (h) => h.Name,
      (h) => h.ID,
    ),
    scripts: indexByName(
      SCRIPTS,
      (s) => s.Name,
      (s) => s.ID,
    ),
    dateLists: indexByName(
      DATE_LISTS,
      (d) => d.Name,
      (d) => d.ID,
    ),
    resourceGroups: indexByName([{ Name: 'Finance' }, { Name: 'Partners' }, { Name: 'Operations' }], (g) => g.Name),
    acls: new Map(acls.map((a) => [aclKey(a.ResourceGroupName, a.UserGroupName), a])),
    userGroups: { names: userGroups, readable: options.userGroupsReadable ?? true },
  };
}

export const USERS: TransferUser[] = [
  { id: 'u-alice', username: 'alice' },
  { id: 'u-bob', username: 'bob' },
  { id: 'u-carol', username: 'carol' },
];
export const GROUPS: TransferGroup[] = [
  { id: '7', name: 'Acme Partners' },
  { id: '8', name: 'Finance Team' },
];

export interface FolderFixture {
  readonly path: string;
  readonly id?: string;
  readonly acl?: FolderAclEntry[];
}

/** Transfer live state: `folders` exist (with their ACL), `missing` were looked up and are absent. */
export function transferState(folders: FolderFixture[], options: { missing?: string[]; scopeFolders?: string[] } = {}): TransferLiveState {
  const map = new Map<string, LiveFolder | null>();
  folders.forEach((f, i) =>
    map.set(folderKey(f.path), { folder: { id: f.id ?? String(1000 + i), name: f.path.split('/').pop() ?? '', path: f.path }, acl: f.acl ?? [] }),
  );
  for (const p of options.missing ?? []) map.set(folderKey(p), null);
  return {
    users: indexByName(
      USERS,
      (u) => u.username,
      (u) => u.id,
    ),
    groups: indexByName(
      GROUPS,
      (g) => g.name,
      (g) => g.id,
    ),
    folders: map,
    ...(options.scopeFolders ? { scopeFolders: options.scopeFolders.map(folderKey) } : {}),
  };
}

/** One ACL entry as the transfer client returns it. */
export function entry(type: 'User' | 'Group', id: string, name: string, granted: string[], extra: Partial<FolderAclEntry> = {}): FolderAclEntry {
  const permissions: Record<string, unknown> = {};
  for (const k of ['readFiles', 'writeFiles', 'deleteFiles', 'listFiles', 'notify', 'addDeleteSubfolders', 'share', 'admin', 'listUsers'])
    permissions[k] = granted.includes(k);
  const share: Record<string, boolean> = {};
  for (const k of ['readFiles', 'writeFiles', 'deleteFiles', 'listFiles', 'notify', 'listUsers']) share[k] = granted.includes(`share:${k}`);
  permissions.sharePermissions = share;
  return { type, id, name, permissions, isEditable: true, isDeletable: true, ...extra };
}

/** Resolve and plan in one go (pure), with defaults for everything but the state. */
export function planFrom(
  manifests: Manifest[],
  live: LiveState,
  options: Partial<Omit<ComputePlanInput, 'desired' | 'live'>> = {},
): { plan: Plan; diagnostics: PlanDiagnostic[]; desired: DesiredState } {
  const resolved = resolveDesired(manifests, live);
  const { plan, diagnostics } = computePlan({
    desired: resolved.desired,
    live,
    environment: 'test',
    servers: {},
    manifestDigest: `sha256:${'0'.repeat(64)}`,
    scope: { taskGroups: ['Finance', 'Partners'], folders: ['/Distribution'] },
    prune: [],
    toolVersion: '0.0.0-test',
    now: new Date('2026-11-22T00:00:00Z'),
    taskVocabulary: getValueVocabulary('Task'),
    ...options,
  });
  return { plan, diagnostics: [...resolved.diagnostics, ...diagnostics], desired: resolved.desired };
}
