import { folderKey, parentPath, uniqueFolderPaths } from '../../folder-path.js';
import { mapWithConcurrency } from '../../map-with-concurrency.js';
import type { FolderPermissionsManifest } from '../../manifest/types.js';
import { formatAddress } from '../../plan/model.js';
import type { Change } from '../../plan/model.js';
import { entryPermissions, fingerprintFolder } from './plan.js';
import type { FolderPermissionsPayload } from '../../resources/model.js';
import type { Folder, FolderAclEntry, FolderPermissions } from '../../services/transfer/types.js';
import { needReader, planBug, StepError, transferWriter } from '../kind-io.js';
import type { KindIo, StepContext } from '../kind-io.js';
import { readFoldersForImport } from './io-import.js';

export type EntrySet = FolderPermissionsPayload['set'][number];
export type EntryRef = FolderPermissionsPayload['remove'][number];

/**
 * The requests of a folder change. `address` is the change's: the folder's id is taken from the
 * table of the apply's ids (`StepContext.created`) when the step runs, so the steps after a
 * create use the id it returned.
 */
export type FolderStep =
  /**
   * POST /folders/{parentId}/subfolders. The parent's id is the one this apply knows for
   * `parentAddress` (a parent this plan creates or renames: `parentMadeHere`, and then it must be
   * known), else the folder found at `parentPath` when the step runs.
   */
  | {
      readonly op: 'folder-create';
      readonly address: string;
      readonly path: string;
      readonly parentPath: string;
      readonly parentAddress: string;
      readonly parentMadeHere: boolean;
      readonly name: string;
      readonly inheritPermissions: 'None' | 'CopyOnly' | 'Always';
    }
  /** PATCH /folders/{id} `{name}`: rename in place; `path` (the new one) finds it again after an unknown outcome. */
  | { readonly op: 'folder-rename'; readonly address: string; readonly path: string; readonly from: string; readonly name: string }
  /** PUT /folders/{id}/acls: create or update one entry. The folder's id is known by the time it runs. */
  | { readonly op: 'entry-set'; readonly address: string; readonly folderPath: string; readonly entry: EntrySet }
  /** DELETE /folders/{id}/acls with `{type, id}`. */
  | { readonly op: 'entry-remove'; readonly address: string; readonly folderPath: string; readonly entry: EntryRef };

/** A folder and its ACL entries as read (the live state's `LiveFolder`, which sits above this module). */
interface TouchedFolder {
  readonly folder: Folder;
  readonly acl: readonly FolderAclEntry[];
}

/** The touched folders as they are now. */
export interface FolderTouched {
  /** Touched folders by `folderKey`: the folder and its ACL, or null when no folder has the path. */
  readonly folders: ReadonlyMap<string, TouchedFolder | null>;
  /** Parents of folders to create (those the plan does not create itself) by `folderKey`: do they exist. */
  readonly parents: ReadonlyMap<string, boolean>;
}

export const FOLDER_PERMISSIONS_IO: KindIo<'FolderPermissions'> = {
  kind: 'FolderPermissions',
  idsOf: (id) => ({ folder: id }),
  idIn: (ids) => ids.folder,

  readAhead: 'folder-acl',
  liveNeeds(manifests, scope, prune) {
    const folders = manifests.filter((m): m is FolderPermissionsManifest => m.kind === 'FolderPermissions');
    const walk = prune.includes('FolderPermissions') ? [...scope.folders] : [];
    if (folders.length === 0 && walk.length === 0) return {};
    return {
      transfer: {
        users: folders.some((m) => m.spec.entries.some((e) => e.user !== undefined)),
        groups: folders.some((m) => m.spec.entries.some((e) => e.group !== undefined)),
        groupNames: [...new Set(folders.flatMap((m) => m.spec.entries.flatMap((e) => (e.group !== undefined ? [e.group] : []))))],
        folders: folders.map((m) => m.name),
        previous: folders.flatMap((m) => m.previousNames),
        creatable: folders.filter((m) => m.spec.createIfMissing !== undefined).map((m) => m.name),
        walk,
      },
    };
  },

  planSteps(change, payload) {
    if (payload?.kind !== 'FolderPermissions') return planBug(change, 'no folder payload');
    const address = change.address;
    const steps: FolderStep[] = [];
    if (payload.create) {
      const parentAddress = formatAddress('FolderPermissions', payload.create.parentPath);
      const parentMadeHere = change.needs !== undefined && change.needs.toLowerCase() === parentAddress.toLowerCase();
      steps.push({ op: 'folder-create', address, path: payload.path, ...payload.create, parentAddress, parentMadeHere });
    } else if (change.liveId === undefined) planBug(change, 'no live id in the plan');
    // The folder's own entries (and anything below it) are written once it has its new path.
    if (payload.rename) steps.push({ op: 'folder-rename', address, path: payload.path, ...payload.rename });
    for (const entry of payload.set) steps.push({ op: 'entry-set', address, folderPath: payload.path, entry });
    for (const entry of payload.remove) steps.push({ op: 'entry-remove', address, folderPath: payload.path, entry });
    return steps;
  },

  async sendStep(step, ctx) {
    switch (step.op) {
      case 'folder-create': {
        const purpose = `create ${step.path} under ${step.parentPath}`;
        const parentId = step.parentMadeHere
          ? ctx.created.require(step.parentAddress, purpose)
          : (ctx.created.idOf(step.parentAddress) ?? (await transferWriter(ctx).findFolderByPath(step.parentPath))?.id);
        if (parentId === undefined) throw new StepError(`cannot create ${step.path}: its parent folder ${step.parentPath} does not exist`);
        const folder = await transferWriter(ctx).createSubfolder(parentId, { name: step.name, inheritPermissions: step.inheritPermissions });
        return { folder: folder.id };
      }
      case 'folder-rename': {
        const id = folderId(ctx, step.address, step.path);
        await transferWriter(ctx).renameFolder(id, step.name);
        return { folder: id };
      }
      case 'entry-set': {
        const id = folderId(ctx, step.address, step.folderPath);
        await transferWriter(ctx).setFolderAcl(id, { type: step.entry.type, id: step.entry.id, permissions: step.entry.permissions as FolderPermissions });
        return { folder: id };
      }
      case 'entry-remove': {
        const id = folderId(ctx, step.address, step.folderPath);
        await transferWriter(ctx).deleteFolderAcl(id, { type: step.entry.type, id: step.entry.id });
        return { folder: id };
      }
      default: {
        const never: never = step;
        throw new Error(`unknown step ${String(never)}`);
      }
    }
  },

  async confirmStep(step, ctx) {
    switch (step.op) {
      case 'folder-create': {
        const folder = await transferWriter(ctx).findFolderByPath(step.path);
        return folder ? { kind: 'done', ids: { folder: folder.id } } : { kind: 'resend', step };
      }
      case 'folder-rename': {
        const id = folderId(ctx, step.address, step.path);
        const folder = await transferWriter(ctx).findFolderByPath(step.path);
        if (!folder) return { kind: 'resend', step };
        return folder.id === id
          ? { kind: 'done', ids: { folder: id } }
          : { kind: 'fail', message: `${step.path} is now another folder (id ${folder.id}), not the one renamed from ${step.from} (id ${id})` };
      }
      case 'entry-set': {
        const id = folderId(ctx, step.address, step.folderPath);
        const entry = findEntry(await transferWriter(ctx).listFolderAcls(id), step.entry.type, step.entry.id);
        return entry && sameEntryPermissions(step.entry.permissions, entry.permissions) ? { kind: 'done', ids: { folder: id } } : { kind: 'resend', step };
      }
      case 'entry-remove': {
        const id = folderId(ctx, step.address, step.folderPath);
        const entry = findEntry(await transferWriter(ctx).listFolderAcls(id), step.entry.type, step.entry.id);
        return entry ? { kind: 'resend', step } : { kind: 'done', ids: { folder: id } };
      }
      default: {
        const never: never = step;
        throw new Error(`unknown step ${String(never)}`);
      }
    }
  },

  verifySteps: (change) => FOLDER_PERMISSIONS_IO.planSteps(change, change.payload),

  async readTouched(changes, readers, parallelism) {
    const transfer = needReader(readers.transfer, 'transfer');
    const created = new Set(changes.filter((c) => c.action === 'create').map((c) => folderKey(c.name)));
    // A renamed folder is read at its previous path (where it is) and at its new one (nothing may be there yet).
    const paths = uniqueFolderPaths(changes.flatMap((c) => (c.previousName !== undefined ? [c.previousName, c.name] : [c.name])));
    const parents = uniqueFolderPaths(
      changes
        .filter((c) => c.action === 'create')
        .map(createdFolderParent)
        .filter((p): p is string => p !== undefined && !created.has(folderKey(p))),
    );
    const [folders, parentFound] = await Promise.all([
      mapWithConcurrency(paths, parallelism, async (path): Promise<TouchedFolder | null> => {
        const folder = await transfer.findFolderByPath(path);
        return folder ? { folder, acl: await transfer.listFolderAcls(folder.id) } : null;
      }),
      mapWithConcurrency(parents, parallelism, async (path) => (await transfer.findFolderByPath(path)) !== null),
    ]);
    return {
      folders: new Map(paths.map((p, i) => [folderKey(p), folders[i] ?? null])),
      parents: new Map(parents.map((p, i) => [folderKey(p), parentFound[i] ?? false])),
    };
  },

  findStale(c, now) {
    const live = now.folders.get(folderKey(c.name));
    if (c.action === 'create') {
      const found = [];
      if (live) found.push({ how: 'appeared' as const, detail: `folder ${live.folder.path} now exists (id ${live.folder.id})` });
      const parent = createdFolderParent(c);
      if (parent !== undefined && now.parents.get(folderKey(parent)) === false)
        found.push({ how: 'gone' as const, detail: `its parent folder ${parent} no longer exists` });
      return found;
    }
    const at = c.previousName ?? c.name;
    const found = now.folders.get(folderKey(at));
    if (!found) return [{ how: 'gone', detail: `folder id ${c.liveId ?? '?'}${c.previousName !== undefined ? ` at ${at}` : ''}` }];
    if (found.folder.id !== c.liveId)
      return [
        {
          how: 'changed',
          detail: `${c.previousName !== undefined ? at : 'the path'} now names another folder (id ${found.folder.id}, was ${c.liveId ?? '?'})`,
        },
      ];
    if (fingerprintFolder(found) !== c.fingerprint) return [{ how: 'changed' }];
    if (c.previousName !== undefined && live)
      return [{ how: 'appeared', detail: `folder ${live.folder.path} now exists (id ${live.folder.id}): the rename would collide with it` }];
    return [];
  },

  describeLeftUndone: () => undefined,
  describeNeeded: (needed) => `${needed.action === 'create' ? 'creating' : 'renaming'} its parent folder (${needed.address})`,

  // Permission flags and principal ids: nothing in them can be a reference.
  mapPayloadStrings: (payload) => payload,
  readForImport: readFoldersForImport,
};

/** The folder a planned folder create goes under: the payload's, else the path's parent. */
function createdFolderParent(c: Change): string | undefined {
  return (c.payload?.kind === 'FolderPermissions' ? c.payload.create?.parentPath : undefined) ?? parentPath(c.name);
}

/** The id this apply knows for the folder of `address` (from the plan, or its create). */
function folderId(ctx: StepContext, address: string, path: string): string {
  const id = ctx.created.idOf(address);
  if (id === undefined) throw new StepError(`folder ${path} has no known id (was it created?)`);
  return id;
}

function findEntry(acl: readonly FolderAclEntry[], type: string, id: string): FolderAclEntry | undefined {
  return acl.find((e) => e.type === type && String(e.id) === id);
}

function sameEntryPermissions(sent: unknown, read: FolderPermissions): boolean {
  const a = entryPermissions(sent as FolderPermissions);
  const b = entryPermissions(read);
  const same = (x: readonly string[], y: readonly string[]) => x.length === y.length && x.every((v) => y.includes(v));
  return same(a.permissions, b.permissions) && same(a.sharePermissions, b.sharePermissions);
}
