import { isAbsolute, relative, sep } from 'node:path';
import type { PrunableKind, Scope } from '../config/model.js';
import { aclKey, folderKey } from '../live/model.js';
import type { LiveFolder, LiveState } from '../live/model.js';
import { folderDepth, parentPath, trimFolderPath } from '../folder-path.js';
import { compareText } from '../order.js';
import { hasErrors } from '../manifest/diagnostics.js';
import type { SourcePosition } from '../manifest/diagnostics.js';
import type { FolderPermissionsManifest, Manifest } from '../manifest/types.js';
import type { ValueVocabulary } from '../manifest/value-words.js';
import { fingerprintFolder, folderName, planFolder, planFolderPrune, viewEntries } from '../resources/folder-permissions.js';
import type { EntryView, FolderOutcome } from '../resources/folder-permissions.js';
import { canonicalPermissions, fingerprintAcl, grantedPermissions, planAcl } from '../resources/resource-group-acl.js';
import { createTaskCatalog, fingerprintTask, planTask, taskId } from '../resources/task.js';
import type { DesiredFolder, DesiredState } from './desired.js';
import { createPlanDiagnostic, createPlanWarning, didYouMean } from './diagnostics.js';
import type { PlanDiagnostic } from './diagnostics.js';
import { composePlan } from './compose-plan.js';
import { planAccessChanges } from './access-changes.js';
import type { AccessBasis, UserGroupAccess } from './access-changes.js';
import { establishesFolderPath, formatAddress, isWriteAction, parseAddress } from './model.js';
import type { AccessReport, Change, ChangeReason, EntryChange, FieldChange, Plan, PlanHeader, PruneOff, ResolvedName, ResourceKind, SourceRef } from './model.js';
import { parseFieldPath } from '../resources/common.js';

export interface PlanChangesInput {
  readonly desired: DesiredState;
  readonly live: LiveState;
  /** Environment name from mftops.yaml. */
  readonly environment: string;
  readonly servers: Plan['servers'];
  readonly manifestDigest: string;
  /** The variables the manifests used (ManifestSet.variables): the plan records them. */
  readonly variables?: Plan['variables'];
  readonly scope: Scope;
  readonly prune: readonly PrunableKind[];
  /** Why the environment's `prune` is off for this run (`prune` is then empty): the plan says so. */
  readonly pruneOff?: PruneOff;
  /** `Kind/name` addresses: plan only these (and the parent folders they need). */
  readonly targets?: readonly string[];
  readonly toolVersion: string;
  readonly now: Date;
  /** Manifest paths in `source` are shown relative to this folder. Default: as loaded (absolute). */
  readonly cwd?: string;
  /** The words of the task fields, from the task schema (`getValueVocabulary('Task')`): field changes carry them. */
  readonly taskVocabulary: ValueVocabulary;
}

/**
 * Desired state + live state → the plan (pure). Every managed object gets a change, no-ops
 * included; unmanaged objects in scope get a `delete` for the kinds listed in `prune`. Order:
 * folders (parents before children), resource-group ACLs, tasks; then deletes in the reverse
 * order (tasks, ACLs, folders children first). Problems that only the live state reveals (a
 * missing folder, an unknown `--target`) are diagnostics; the objects concerned are left out and
 * the plan is `errored`, as it is when `desired` left manifests out.
 */
/**
 * The plan, its diagnostics, and `accessWith`: the access report again with user-group members
 * read after the plan (only a plan that changes an ACL needs them), without planning again.
 */
export interface PlannedChanges {
  readonly plan: Plan;
  readonly diagnostics: PlanDiagnostic[];
  readonly accessWith: (userGroups: UserGroupAccess) => AccessReport | undefined;
}

export function planChanges(input: PlanChangesInput): PlannedChanges {
  const diagnostics: PlanDiagnostic[] = [];
  /** What each permission change starts from and ends with, for the access report. */
  const bases = new Map<string, AccessBasis>();
  const source = (m: Manifest): SourceRef => sourceRef(m.source, input.cwd);
  const items: Ordered[] = [];
  let seq = 0;
  const add = (change: Change, rank: number, depth = 0) => items.push({ change, rank, depth, seq: seq++ });

  // ---------------------------------------------------------------------------------- tasks
  const cat = createTaskCatalog(input.live.automation, input.taskVocabulary);
  const liveTasks = input.live.automation?.tasks;
  for (const d of input.desired.tasks) {
    const m = d.manifest;
    let live = liveTasks?.byName.get(m.name.toLowerCase());
    let previousName: string | undefined;
    if (!live) {
      for (const old of m.previousNames) {
        live = liveTasks?.byName.get(old.toLowerCase());
        if (live) {
          previousName = live.Name ?? old;
          break;
        }
      }
    }
    const o = planTask(d, live, cat, previousName);
    add(
      {
        address: formatAddress('Task', m.name),
        kind: 'Task',
        name: m.name,
        service: 'automation',
        action: o.action,
        ...(o.reason !== undefined ? { reason: o.reason } : {}),
        ...(previousName !== undefined ? { previousName } : {}),
        ...(live ? { liveId: taskId(live), ...fingerprintOf(o.action, () => fingerprintTask(live)) } : {}),
        fields: withOrigins(o.fields, m, input.cwd),
        source: source(m),
        ...(o.payload ? { payload: o.payload } : {}),
      },
      RANK.Task,
    );
  }

  // ----------------------------------------------------------------------------------- ACLs
  const liveAcls = input.live.automation?.acls;
  for (const d of input.desired.acls) {
    const live = liveAcls?.get(aclKey(d.resourceGroup, d.userGroup));
    const o = planAcl(d, live);
    bases.set(formatAddress('ResourceGroupAcl', d.manifest.name), { kind: 'acl', userGroup: d.userGroup, resourceGroup: d.resourceGroup, before: live ? grantedPermissions(live) : [], after: canonicalPermissions(d.permissions) });
    add(
      {
        address: formatAddress('ResourceGroupAcl', d.manifest.name),
        kind: 'ResourceGroupAcl',
        name: d.manifest.name,
        service: 'automation',
        action: o.action,
        ...(live ? { liveId: live.ACLID, ...fingerprintOf(o.action, () => fingerprintAcl(live)) } : {}),
        fields: withOrigins(o.fields, d.manifest, input.cwd),
        source: source(d.manifest),
        ...(o.payload ? { payload: o.payload } : {}),
      },
      RANK.ResourceGroupAcl,
    );
  }

  // -------------------------------------------------------------------------------- folders
  const folders = input.live.transfer?.folders ?? new Map<string, LiveFolder | null>();
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
  const byDepth = [...input.desired.folders].map((d, i) => ({ d, i })).sort((a, b) => folderDepth(a.d.path) - folderDepth(b.d.path) || a.i - b.i);
  for (const { d } of byDepth) {
    const m = d.manifest;
    const key = folderKey(d.path);
    const live = folders.get(key);
    const base = { address: formatAddress('FolderPermissions', d.path), kind: 'FolderPermissions' as const, name: d.path, service: 'transfer' as const, source: source(m) };
    if (checkMovedAway(d, moved, diagnostics)) continue;
    const previous = m.previousNames.flatMap((p, index) => {
      const f = folders.get(folderKey(p));
      return f ? [{ index, live: f }] : [];
    });
    if (live) {
      for (const p of previous) {
        if (p.live.folder.id === live.folder.id) continue;
        diagnostics.push(
          createPlanWarning('MF412', m.sourceMap.locate(['metadata', 'previousNames', p.index]), `previous name ${p.live.folder.path} of folder ${d.path} still exists on the transfer server (id ${p.live.folder.id}): the plan manages ${live.folder.path} and leaves ${p.live.folder.path} alone`, {
            hint: `delete or rename ${p.live.folder.path} on the transfer server, or drop it from previousNames`,
          }),
        );
      }
      const liveEntries = viewEntries(live.acl);
      const o = planFolder(d, liveEntries);
      after.set(key, o.after);
      bases.set(base.address, { kind: 'folder', before: liveEntries, after: o.after });
      add({ ...base, ...outcomeFields(o, m, input.cwd), liveId: String(live.folder.id), ...fingerprintOf(o.action, () => fingerprintFolder(live)) }, RANK.FolderPermissions, folderDepth(d.path));
      continue;
    }
    const renamed = previous[0]?.live;
    if (renamed) {
      const from = renamed.folder.path;
      const identity = { previousName: from, liveId: String(renamed.folder.id), fingerprint: fingerprintFolder(renamed) };
      const blocked = renameBlocked(from, d.path, moved);
      if (blocked !== undefined) {
        add({ ...base, action: 'blocked', reason: blocked, ...identity, fields: [{ path: 'path', before: from, after: d.path }] }, RANK.FolderPermissions, folderDepth(d.path));
        continue;
      }
      const liveEntries = viewEntries(renamed.acl);
      const o = planFolder(d, liveEntries, undefined, from);
      moved.set(folderKey(from), d.path);
      after.set(key, o.after);
      bases.set(base.address, { kind: 'folder', before: liveEntries, after: o.after });
      add({ ...base, ...outcomeFields(o, m, input.cwd), ...identity }, RANK.FolderPermissions, folderDepth(d.path));
      continue;
    }
    const create = planFolderCreation(d, entriesAfter, diagnostics);
    if (!create) continue;
    after.set(key, create.after);
    bases.set(base.address, { kind: 'folder', before: [], after: create.after });
    add({ ...base, ...outcomeFields(create, m, input.cwd) }, RANK.FolderPermissions, folderDepth(d.path));
  }

  // --------------------------------------------------------------------------------- prune
  for (const change of planPrune(input, bases)) add(change.change, change.rank, change.depth);

  // ------------------------------------------------------------------------- targets, order
  let selected = items;
  if (input.targets && input.targets.length > 0) selected = selectTargets(items, input.targets, input.desired, diagnostics);
  const changes = withResolvedNames(orderChanges(selected), input.desired);
  // Manifests whose references did not resolve were reported (and left out) by resolveDesired.
  const errored = hasErrors(diagnostics) || input.desired.skipped.length > 0;
  const header: PlanHeader = {
    toolVersion: input.toolVersion,
    createdAt: input.now.toISOString(),
    environment: input.environment,
    servers: input.servers,
    manifestDigest: input.manifestDigest,
    ...(input.variables !== undefined && Object.keys(input.variables).length > 0 ? { variables: input.variables } : {}),
    ...(input.targets && input.targets.length > 0 ? { targets: [...input.targets] } : {}),
    ...(input.pruneOff !== undefined ? { pruneOff: input.pruneOff } : {}),
  };
  const automation = input.live.automation;
  const userGroups = automation?.userGroupMembers ? { members: automation.userGroupMembers, acls: automation.acls ?? new Map() } : undefined;
  const transferMembers = input.live.transfer?.groupMembers;
  return {
    plan: composePlan(header, changes, errored, planAccessChanges(changes, bases, transferMembers, userGroups)),
    diagnostics,
    accessWith: (known) => planAccessChanges(changes, bases, transferMembers, known),
  };
}

/** Each write change with the names its desired object resolved (`Change.resolved`), for apply to check again. */
function withResolvedNames(changes: readonly Change[], desired: DesiredState): Change[] {
  const byAddress = new Map<string, readonly ResolvedName[]>();
  for (const d of desired.tasks) byAddress.set(formatAddress('Task', d.manifest.name), d.resolved);
  for (const d of desired.acls) byAddress.set(formatAddress('ResourceGroupAcl', d.manifest.name), d.resolved);
  for (const d of desired.folders) byAddress.set(formatAddress('FolderPermissions', d.path), d.resolved);
  return changes.map((c) => {
    const resolved = isWriteAction(c.action) ? byAddress.get(c.address) : undefined;
    return resolved !== undefined && resolved.length > 0 ? { ...c, resolved } : c;
  });
}

interface Ordered {
  readonly change: Change;
  /** Kind order of creates and updates: folders, then ACLs, then tasks. */
  readonly rank: number;
  /** Folder path depth: parents first (deletes: children first). */
  readonly depth: number;
  readonly seq: number;
}

const RANK: Readonly<Record<ResourceKind, number>> = { FolderPermissions: 0, ResourceGroupAcl: 1, Task: 2 };

function orderChanges(items: readonly Ordered[]): Change[] {
  const isDelete = (o: Ordered) => o.change.action === 'delete';
  const writes = items.filter((o) => !isDelete(o)).sort((a, b) => a.rank - b.rank || a.depth - b.depth || a.seq - b.seq);
  const deletes = items.filter(isDelete).sort((a, b) => b.rank - a.rank || b.depth - a.depth || compareText(a.change.name, b.change.name));
  return [...writes, ...deletes].map((o) => o.change);
}

/**
 * The fields with their `origin` where a `kind: Patch` gave the manifest value (README:
 * Environments): a field's display path is its path under `spec`.
 */
function withOrigins(fields: readonly FieldChange[], m: Manifest, cwd: string | undefined): readonly FieldChange[] {
  const patchedAt = m.sourceMap.patchedAt?.bind(m.sourceMap);
  if (patchedAt === undefined) return fields;
  return fields.map((f) => {
    const at = patchedAt(['spec', ...parseFieldPath(f.path)]);
    return at === undefined ? f : { ...f, origin: sourceRef(at, cwd) };
  });
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
    ...(o.reason !== undefined ? { reason: o.reason } : {}),
    fields: o.fields,
    entries: m === undefined ? o.entries : withEntryOrigins(o.entries, m, cwd),
    ...(o.payload ? { payload: o.payload } : {}),
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
  const parent = parentPath(d.path);
  const above = parent === undefined ? undefined : movedAncestor(parent, moved);
  if (above === undefined) return false;
  diagnostics.push(
    createPlanDiagnostic('MF408', d.manifest.sourceMap.locate(['metadata', 'name']), `folder ${d.path} will not exist after this plan: ${above.from} above it is renamed to ${above.to}`, {
      hint: `name it ${pathAfterMoves(d.path, moved)}, with ${d.path} in previousNames`,
    }),
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
function planFolderCreation(d: DesiredFolder, entriesAfter: (path: string) => readonly EntryView[] | undefined, diagnostics: PlanDiagnostic[]): FolderOutcome | undefined {
  const m = d.manifest;
  const at = m.sourceMap.locate(['metadata', 'name']);
  const how = m.spec.createIfMissing;
  if (!how) {
    diagnostics.push(createPlanDiagnostic('MF408', at, `folder ${d.path} does not exist on the transfer server; add createIfMissing to create it`, { hint: 'or check the path: folder paths must match the server (case aside)' }));
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

// ------------------------------------------------------------------------------------- prune

function planPrune(input: PlanChangesInput, bases: Map<string, AccessBasis>): { change: Change; rank: number; depth: number }[] {
  const out: { change: Change; rank: number; depth: number }[] = [];
  const all: Manifest[] = [...input.desired.tasks.map((d) => d.manifest), ...input.desired.acls.map((d) => d.manifest), ...input.desired.folders.map((d) => d.manifest), ...input.desired.skipped];
  const inScope = new Set(input.scope.taskGroups.map((g) => g.toLowerCase()));

  if (input.prune.includes('Task') && inScope.size > 0) {
    const managed = new Set<string>();
    for (const m of all) if (m.kind === 'Task') for (const n of [m.name, ...m.previousNames]) managed.add(n.toLowerCase());
    for (const t of input.live.automation?.tasks?.items ?? []) {
      const name = t.Name ?? '';
      const groups = Array.isArray(t.Group) ? t.Group : [];
      if (managed.has(name.toLowerCase()) || !groups.some((g) => inScope.has(String(g).toLowerCase()))) continue;
      out.push({
        change: {
          address: formatAddress('Task', name),
          kind: 'Task',
          name,
          service: 'automation',
          action: 'delete',
          reason: { code: 'pruned', kind: 'Task', scope: [...input.scope.taskGroups] },
          liveId: taskId(t),
          fingerprint: fingerprintTask(t),
          fields: [],
        },
        rank: RANK.Task,
        depth: 0,
      });
    }
  }

  if (input.prune.includes('ResourceGroupAcl') && inScope.size > 0) {
    const managed = new Set<string>();
    for (const d of input.desired.acls) managed.add(aclKey(d.resourceGroup, d.userGroup));
    for (const m of input.desired.skipped) if (m.kind === 'ResourceGroupAcl') managed.add(aclKey(m.spec.resourceGroup, m.spec.userGroup));
    for (const [key, acl] of input.live.automation?.acls ?? []) {
      if (managed.has(key) || !inScope.has(acl.ResourceGroupName.toLowerCase())) continue;
      const name = `${acl.ResourceGroupName}/${acl.UserGroupName}`;
      bases.set(formatAddress('ResourceGroupAcl', name), { kind: 'acl', userGroup: acl.UserGroupName, resourceGroup: acl.ResourceGroupName, before: grantedPermissions(acl), after: [] });
      out.push({
        change: {
          address: formatAddress('ResourceGroupAcl', name),
          kind: 'ResourceGroupAcl',
          name,
          service: 'automation',
          action: 'delete',
          reason: { code: 'pruned', kind: 'ResourceGroupAcl', scope: [...input.scope.taskGroups] },
          liveId: acl.ACLID,
          fingerprint: fingerprintAcl(acl),
          fields: [],
        },
        rank: RANK.ResourceGroupAcl,
        depth: 0,
      });
    }
  }

  const transfer = input.live.transfer;
  if (input.prune.includes('FolderPermissions') && transfer?.scopeFolders) {
    const managed = new Set<string>();
    for (const m of all) if (m.kind === 'FolderPermissions') for (const n of [m.name, ...m.previousNames]) managed.add(folderKey(n));
    for (const key of transfer.scopeFolders) {
      const live = transfer.folders.get(key);
      if (managed.has(key) || !live) continue;
      const liveEntries = viewEntries(live.acl);
      const o = planFolderPrune(live.folder.path, liveEntries);
      if (!o) continue;
      bases.set(formatAddress('FolderPermissions', live.folder.path), { kind: 'folder', before: liveEntries, after: o.after });
      out.push({
        change: {
          address: formatAddress('FolderPermissions', live.folder.path),
          kind: 'FolderPermissions',
          name: live.folder.path,
          service: 'transfer',
          liveId: String(live.folder.id),
          fingerprint: fingerprintFolder(live),
          ...outcomeFields(o),
        },
        rank: RANK.FolderPermissions,
        depth: folderDepth(live.folder.path),
      });
    }
  }
  return out;
}

/**
 * Only objects the plan writes carry a fingerprint: apply's stale check reads and compares just
 * those, and hashing every no-op of a large estate was a tenth of the plan's CPU time.
 */
function fingerprintOf(action: Change['action'], fingerprint: () => string): { fingerprint?: string } {
  return action === 'no-op' ? {} : { fingerprint: fingerprint() };
}

// ----------------------------------------------------------------------------------- targets

/**
 * The changes `--target` names, plus the creates of parent folders a targeted folder create
 * needs. Addresses compare without regard to case (both servers fold case); an ACL answers to
 * its label and to `resourceGroup/userGroup`. A target that names nothing is a warning (as in
 * Terraform: the plan is limited to the others, or to nothing, and writes nothing for it); one
 * that is not an address at all (`Kind/name`) is an error.
 */
function selectTargets(items: readonly Ordered[], targets: readonly string[], desired: DesiredState, diagnostics: PlanDiagnostic[]): Ordered[] {
  const aliases = (c: Change): string[] => {
    const list = [c.address];
    if (c.payload?.kind === 'ResourceGroupAcl') list.push(formatAddress('ResourceGroupAcl', `${c.payload.resourceGroup}/${c.payload.userGroup}`));
    return list.map((a) => a.toLowerCase());
  };
  const known = new Set<string>();
  for (const o of items) for (const a of aliases(o.change)) known.add(a);
  for (const m of desired.skipped) known.add(formatAddress(m.kind, m.name).toLowerCase());

  const wanted = new Set<string>();
  for (const t of targets) {
    const parsed = parseAddress(t.trim());
    const norm = parsed ? formatAddress(parsed.kind, parsed.name).toLowerCase() : undefined;
    if (norm === undefined || !known.has(norm)) {
      const candidates = items.map((o) => o.change.address);
      const summary = `--target names nothing in this plan${didYouMean(t, candidates)}`;
      diagnostics.push(
        parsed
          ? createPlanWarning('MF409', undefined, summary, { address: t.trim() })
          : createPlanDiagnostic('MF409', undefined, summary, { hint: 'an address is Kind/name, e.g. Task/Payroll to bank or FolderPermissions/Finance/Payroll', address: t.trim() }),
      );
      continue;
    }
    wanted.add(norm);
  }
  const chosen = new Set(items.filter((o) => aliases(o.change).some((a) => wanted.has(a))));
  // A new or renamed folder needs its parent: include the parents' creates and renames, transitively.
  const makers = new Map(items.filter((o) => establishesFolderPath(o.change)).map((o) => [folderKey(o.change.name), o]));
  for (const o of [...chosen]) {
    if (!establishesFolderPath(o.change)) continue;
    for (let p = parentPath(o.change.name); p !== undefined; p = parentPath(p)) {
      const parent = makers.get(folderKey(p));
      if (!parent) break;
      chosen.add(parent);
    }
  }
  return items.filter((o) => chosen.has(o));
}

// ------------------------------------------------------------------------------------ helpers

/** A manifest position with its path relative to `cwd` (when below it), `/`-separated. */
export function sourceRef(at: SourcePosition, cwd: string | undefined): SourceRef {
  let file = at.file;
  if (cwd !== undefined) {
    const rel = relative(cwd, at.file);
    if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) file = rel;
  }
  return { file: sep === '/' ? file : file.split(sep).join('/'), line: at.line, col: at.col };
}
