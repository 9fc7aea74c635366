import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { EmulatorSeed } from '../src/emulator/index.js';
import { generateTaskManifest } from './generate-manifests.js';

/**
 * The large estate of the benchmark (issue 8): besides the generated tasks (created through the
 * API, see run-bench), `folders` managed transfer folders below `/Bench` with 5 group entries each,
 * and `acls` resource-group ACLs over 10 resource groups. Folders and ACLs go into the emulator's
 * seed: creating them through the API would measure the emulator, not mftops.
 */
export interface EstateSize {
  readonly tasks: number;
  readonly folders: number;
  readonly acls: number;
}

/** Entries per managed folder, and the groups they name. */
export const ENTRIES_PER_FOLDER = 5;
const RESOURCE_GROUPS = 10;
const FOLDER_PERMISSIONS = [
  ['listFiles', 'readFiles'],
  ['listFiles', 'readFiles', 'writeFiles'],
  ['listFiles'],
  ['listFiles', 'readFiles', 'deleteFiles'],
  ['listFiles', 'writeFiles'],
] as const;

export const benchFolderPath = (i: number): string => `/Bench/F${String(i).padStart(5, '0')}`;
const benchGroup = (k: number): string => `Bench Group ${k}`;
const rgName = (i: number): string => `Bench RG ${i % RESOURCE_GROUPS}`;
const ugName = (i: number): string => `Bench Users ${String(Math.floor(i / RESOURCE_GROUPS)).padStart(4, '0')}`;

/** `base` plus the bench groups, folders, user groups, resource groups and ACLs (a new object). */
export function extendSeed(base: EmulatorSeed, size: EstateSize): EmulatorSeed {
  const userGroups = Math.ceil(size.acls / RESOURCE_GROUPS);
  const seed = structuredClone(base) as EmulatorSeed & { automation: Record<string, unknown[]>; transfer: Record<string, unknown[]> };
  const a = seed.automation;
  const t = seed.transfer;
  a.userGroups = [
    ...(a.userGroups ?? []),
    ...Array.from({ length: userGroups }, (_, i) => ({ Name: ugName(i * RESOURCE_GROUPS), Type: 'local', Description: 'bench' })),
  ];
  a.resourceGroups = [...(a.resourceGroups ?? []), ...Array.from({ length: RESOURCE_GROUPS }, (_, i) => ({ Name: rgName(i), Notes: 'bench' }))];
  a.acls = [
    ...(a.acls ?? []),
    ...Array.from({ length: size.acls }, (_, i) => ({
      ACLID: String(9_000_000 + i),
      ResourceGroupName: rgName(i),
      UserGroupName: ugName(i),
      Permissions: { TaskRun: 1 },
    })),
  ];
  t.groups = [...(t.groups ?? []), ...Array.from({ length: ENTRIES_PER_FOLDER }, (_, k) => ({ name: benchGroup(k), description: 'bench', members: [] }))];
  t.folders = [
    ...(t.folders ?? []),
    { path: '/Bench', description: 'bench' },
    ...Array.from({ length: size.folders }, (_, i) => ({
      path: benchFolderPath(i),
      description: 'bench',
      acl: FOLDER_PERMISSIONS.map((perms, k) => ({
        type: 'Group' as const,
        name: benchGroup(k),
        permissions: Object.fromEntries(perms.map((p) => [p, true])),
      })),
    })),
  ];
  return seed;
}

function folderManifest(i: number, changed: boolean): string {
  const entries = FOLDER_PERMISSIONS.map((perms, k) => {
    const list = changed && k === 0 ? [...perms, 'writeFiles'] : perms;
    return `    - group: ${benchGroup(k)}\n      permissions: [${list.join(', ')}]`;
  });
  return `apiVersion: mftops/v1\nkind: FolderPermissions\nmetadata: { name: ${benchFolderPath(i)} }\nspec:\n  mode: exact\n  entries:\n${entries.join('\n')}\n`;
}

function aclManifest(i: number, changed: boolean): string {
  const perms = changed ? 'TaskRun, TaskEditExisting' : 'TaskRun';
  return `apiVersion: mftops/v1\nkind: ResourceGroupAcl\nmetadata: { name: bench-acl-${i} }\nspec:\n  resourceGroup: ${rgName(i)}\n  userGroup: ${ugName(i)}\n  permissions: [${perms}]\n`;
}

/** Whether object `i` is one of the 1% whose manifest differs from the live state. */
export const isChanged = (i: number): boolean => i % 100 === 0;

/** Writes the file; its size in bytes. */
const writeObject = (dir: string, kind: string, i: number, text: string): number => {
  const file = join(dir, kind, `batch-${String(Math.floor(i / 50)).padStart(3, '0')}`, `${kind}-${i}.yaml`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return Buffer.byteLength(text);
};

/**
 * One file per object under `dir`, 50 per folder. `changed` false: the manifests as populated;
 * true: 1% of each kind changed. Returns the bytes written.
 */
export function writeEstateManifests(dir: string, size: EstateSize, changed: boolean): number {
  let bytes = 0;
  for (let i = 0; i < size.tasks; i++) {
    const text = generateTaskManifest(i);
    bytes += writeObject(dir, 'task', i, changed && isChanged(i) ? text.replace(/Description: (.*)/, 'Description: $1 (changed)') : text);
  }
  for (let i = 0; i < size.folders; i++) bytes += writeObject(dir, 'folder', i, folderManifest(i, changed && isChanged(i)));
  for (let i = 0; i < size.acls; i++) bytes += writeObject(dir, 'acl', i, aclManifest(i, changed && isChanged(i)));
  return bytes;
}

/** Task manifests `from`..`to - 1` as populated (unchanged), laid out as `writeEstateManifests` does. */
export function writeTaskManifests(dir: string, from: number, to: number): void {
  for (let i = from; i < to; i++) writeObject(dir, 'task', i, generateTaskManifest(i));
}

/**
 * The estate of `objects` objects in the bench's proportions, 10 tasks : 2 folders : 1 ACL
 * (13,000 objects: 10,000 tasks, 2,000 folders, 1,000 ACLs).
 */
export function estateOf(objects: number): EstateSize {
  const tasks = Math.round((objects * 10) / 13);
  const folders = Math.round((objects * 2) / 13);
  return { tasks, folders, acls: Math.max(0, objects - tasks - folders) };
}
