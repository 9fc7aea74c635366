import { folderKey } from '../../live/model.js';
import type { LiveFolder } from '../../live/model.js';
import { folderDepth, parentPath, trimFolderPath } from '../../folder-path.js';
import type { FolderPermissionsManifest, Manifest } from '../../manifest/types.js';
import type { Change, ChangeReason, DesiredFolder, EntryChange } from '../../resources/model.js';
import { withDefined } from '../../with-defined.js';
import { formatAddress } from '../address.js';
import { createPlanDiagnostic, createPlanWarning } from '../diagnostics.js';
import type { PlanDiagnostic } from '../diagnostics.js';
import type { PlanContext } from '../kind.js';
import { fingerprintOf, sourceRef } from '../source.js';
import { fingerprintFolder, folderName, planFolder, planFolderPrune, viewEntries } from './plan.js';
import type { EntryView, FolderOutcome } from './plan.js';

/**
 * The folders of a plan, parents first: each managed folder found by its path, found by a
 * previous name (renamed in place, or blocked when it would move), or created under its parent
 * with `createIfMissing` (copying the parent's entries as the plan leaves them); problems that only
 * the live state reveals are diagnostics, and the folder is left out.
 */
export function planFolders(context: PlanContext<'FolderPermissions'>): void {
  const { cwd, diagnostics, bases } = context;
  const folders = context.live.transfer?.folders ?? new Map<string, LiveFolder | null>();
  /** Entries each folder will have once the plan is applied: what a new subfolder copies. */
  const after = new Map<string, readonly EntryView[]>();
  const entriesAfter = (path: string): readonly EntryView[] | undefined => {
    const key = folderKey(path);
    const known = after.get(key);
    if (known) return known;
    const live = folders.get(key);
    return live ? viewEntries(live.acl) : undefined;
  };
  /** Live paths (by key) of the folders this plan renames, or moves along with a renamed parent → their new paths. */
  const moved = new Map<string, string>();
  // Each depth computed once, not in the comparator (it split the path ~20 times per folder).
  const byDepth = context.desired
    .map((desired, index) => ({ desired, index, depth: folderDepth(desired.path) }))
    .sort((a, b) => a.depth - b.depth || a.index - b.index);
  for (const { desired, depth } of byDepth) {
    const manifest = desired.manifest;
    const key = folderKey(desired.path);
    const live = folders.get(key);
    const base = {
      address: formatAddress('FolderPermissions', desired.path),
      kind: 'FolderPermissions' as const,
      name: desired.path,
      service: 'transfer' as const,
      source: sourceRef(manifest.source, cwd),
    };
    if (checkMovedAway(desired, moved, diagnostics)) continue;
    const previous = manifest.previousNames.flatMap((previousName, index) => {
      const found = folders.get(folderKey(previousName));
      return found ? [{ index, live: found }] : [];
    });
    if (live) {
      for (const stillThere of previous) {
        if (stillThere.live.folder.id === live.folder.id) continue;
        const old = stillThere.live.folder;
        diagnostics.push(
          createPlanWarning(
            'MF412',
            manifest.sourceMap.locate(['metadata', 'previousNames', stillThere.index]),
            `previous name ${old.path} of folder ${desired.path} still exists on the transfer server (id ${old.id}): the plan manages ${live.folder.path} and leaves ${old.path} alone`,
            {
              hint: `delete or rename ${old.path} on the transfer server, or drop it from previousNames`,
            },
          ),
        );
      }
      const liveEntries = viewEntries(live.acl);
      const outcome = planFolder(desired, liveEntries);
      after.set(key, outcome.after);
      bases.set(base.address, { kind: 'folder', before: liveEntries, after: outcome.after });
      context.add(
        { ...base, ...outcomeFields(outcome, manifest, cwd), liveId: String(live.folder.id), ...fingerprintOf(outcome.action, () => fingerprintFolder(live)) },
        depth,
      );
      continue;
    }
    const renamed = previous[0]?.live;
    if (renamed) {
      const from = renamed.folder.path;
      const identity = { previousName: from, liveId: String(renamed.folder.id), fingerprint: fingerprintFolder(renamed) };
      const blocked = renameBlocked(from, desired.path, moved);
      if (blocked !== undefined) {
        context.add({ ...base, action: 'blocked', reason: blocked, ...identity, fields: [{ path: 'path', before: from, after: desired.path }] }, depth);
        continue;
      }
      const liveEntries = viewEntries(renamed.acl);
      const outcome = planFolder(desired, liveEntries, undefined, from);
      moved.set(folderKey(from), desired.path);
      after.set(key, outcome.after);
      bases.set(base.address, { kind: 'folder', before: liveEntries, after: outcome.after });
      context.add({ ...base, ...outcomeFields(outcome, manifest, cwd), ...identity }, depth);
      continue;
    }
    const create = planFolderCreation(desired, entriesAfter, diagnostics);
    if (!create) continue;
    after.set(key, create.after);
    bases.set(base.address, { kind: 'folder', before: [], after: create.after });
    context.add({ ...base, ...outcomeFields(create, manifest, cwd) }, depth);
  }
}

/**
 * The unmanaged folders in the environment's folder scope (read with the live state): each has its
 * removable entries deleted; a folder with none is left alone.
 */
export function pruneFolders(context: PlanContext<'FolderPermissions'>): void {
  const transfer = context.live.transfer;
  if (!transfer?.scopeFolders) return;
  const managed = new Set<string>();
  const manifests: readonly Manifest[] = [...context.desired.map((d) => d.manifest), ...context.skipped];
  for (const m of manifests) if (m.kind === 'FolderPermissions') for (const n of [m.name, ...m.previousNames]) managed.add(folderKey(n));
  for (const key of transfer.scopeFolders) {
    const live = transfer.folders.get(key);
    if (managed.has(key) || !live) continue;
    const liveEntries = viewEntries(live.acl);
    const outcome = planFolderPrune(live.folder.path, liveEntries);
    if (!outcome) continue;
    context.bases.set(formatAddress('FolderPermissions', live.folder.path), { kind: 'folder', before: liveEntries, after: outcome.after });
    context.add(
      {
        address: formatAddress('FolderPermissions', live.folder.path),
        kind: 'FolderPermissions',
        name: live.folder.path,
        service: 'transfer',
        liveId: String(live.folder.id),
        fingerprint: fingerprintFolder(live),
        ...outcomeFields(outcome),
      },
      folderDepth(live.folder.path),
    );
  }
}

/** The folder's entries with their `origin` where a `kind: Patch` wrote the manifest's entry (by principal). */
function withEntryOrigins(entries: readonly EntryChange[], m: FolderPermissionsManifest, cwd: string | undefined): readonly EntryChange[] {
  const patchedAt = m.sourceMap.patchedAt?.bind(m.sourceMap);
  if (patchedAt === undefined) return entries;
  return entries.map((e) => {
    const name = e.principal.name.toLowerCase();
    const i = m.spec.entries.findIndex((w) => (e.principal.type === 'User' ? w.user : w.group)?.toLowerCase() === name);
    const at = i < 0 ? undefined : patchedAt(['spec', 'entries', i]);
    return at === undefined ? e : { ...e, origin: sourceRef(at, cwd) };
  });
}

function outcomeFields(o: FolderOutcome, m?: FolderPermissionsManifest, cwd?: string): Pick<Change, 'action' | 'reason' | 'fields' | 'entries' | 'payload'> {
  return {
    action: o.action,
    ...withDefined({ reason: o.reason }),
    fields: o.fields,
    entries: m === undefined ? o.entries : withEntryOrigins(o.entries, m, cwd),
    ...withDefined({ payload: o.payload }),
  };
}

/**
 * Why a folder found at `from` cannot be renamed to `to`, or undefined when it can: the API renames
 * a folder in place (PATCH {name}), so the parent must stay the same — or be the folder a parent
 * rename of this plan moves it to.
 */
function renameBlocked(from: string, to: string, moved: ReadonlyMap<string, string>): ChangeReason | undefined {
  const oldParent = parentPath(from);
  const newParent = parentPath(to);
  if (oldParent === undefined) return { code: 'folder-root-rename', from };
  const parentAfter = pathAfterMoves(oldParent, moved);
  if (newParent !== undefined && folderKey(parentAfter) === folderKey(newParent)) return undefined;
  return { code: 'folder-move', from, to };
}

/**
 * A managed folder below the live path of a folder this plan renames would not exist there
 * afterwards: a diagnostic that says how to follow the rename (true: the folder is left out).
 */
function checkMovedAway(d: DesiredFolder, moved: ReadonlyMap<string, string>, diagnostics: PlanDiagnostic[]): boolean {
  if (moved.size === 0) return false; // nothing renamed yet: no ancestor to walk up to
  const parent = parentPath(d.path);
  const above = parent === undefined ? undefined : movedAncestor(parent, moved);
  if (above === undefined) return false;
  diagnostics.push(
    createPlanDiagnostic(
      'MF408',
      d.manifest.sourceMap.locate(['metadata', 'name']),
      `folder ${d.path} will not exist after this plan: ${above.from} above it is renamed to ${above.to}`,
      {
        hint: `name it ${pathAfterMoves(d.path, moved)}, with ${d.path} in previousNames`,
      },
    ),
  );
  return true;
}

/** The nearest folder at or above `path` that this plan renames: its path as `path` spells it, and its new path. */
function movedAncestor(path: string, moved: ReadonlyMap<string, string>): { from: string; to: string } | undefined {
  for (let p: string | undefined = trimFolderPath(path); p !== undefined; p = parentPath(p)) {
    const to = moved.get(folderKey(p));
    if (to !== undefined) return { from: p, to };
  }
  return undefined;
}

/** Where the folder at `path` will be once this plan's renames are applied. */
function pathAfterMoves(path: string, moved: ReadonlyMap<string, string>): string {
  const above = movedAncestor(path, moved);
  return above === undefined ? path : `${above.to}${trimFolderPath(path).slice(above.from.length)}`;
}

/**
 * A managed folder the server does not have: created under its parent with `createIfMissing`
 * (the parent must exist or be created earlier in this plan), else a diagnostic.
 */
function planFolderCreation(
  d: DesiredFolder,
  entriesAfter: (path: string) => readonly EntryView[] | undefined,
  diagnostics: PlanDiagnostic[],
): FolderOutcome | undefined {
  const m = d.manifest;
  const at = m.sourceMap.locate(['metadata', 'name']);
  const how = m.spec.createIfMissing;
  if (!how) {
    diagnostics.push(
      createPlanDiagnostic('MF408', at, `folder ${d.path} does not exist on the transfer server; add createIfMissing to create it`, {
        hint: 'or check the path: folder paths must match the server (case aside)',
      }),
    );
    return undefined;
  }
  const parent = parentPath(d.path);
  const parentEntries = parent === undefined ? undefined : entriesAfter(parent);
  if (parent === undefined || parentEntries === undefined) {
    diagnostics.push(
      createPlanDiagnostic('MF408', at, `cannot create folder ${d.path}: its parent ${parent ?? '(none)'} does not exist on the transfer server`, {
        hint: `add a FolderPermissions for ${parent ?? 'the parent'} with createIfMissing, or create it first`,
      }),
    );
    return undefined;
  }
  const copied = how.inheritPermissions === 'None' ? [] : parentEntries.map((e) => ({ ...e, editable: true, deletable: true }));
  return planFolder(d, copied, { parentPath: parent, name: folderName(d.path), inheritPermissions: how.inheritPermissions, copied });
}
