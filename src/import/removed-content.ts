import { folderKey } from '../folder-path.js';
import type { LiveState } from '../live/model.js';
import type { Change, JsonObject, Plan } from '../plan/model.js';
import { asFieldValue, sensitiveValue } from '../resources/common.js';
import { aclToManifest, createImportCatalog, createSecretRedactor, folderToManifest, taskToManifest } from './to-manifest.js';
import { groupToManifest } from './to-manifest.js';

/**
 * What each delete (and the delete of each replace) of `plan` removes, as Terraform shows what it
 * destroys: the live object's `spec` as `mftops import` would write it (the same converter),
 * secrets as `$sensitive` markers. Tasks and resource-group ACLs only: a folder's delete already
 * lists every entry it removes, with its permissions. Pure; the live state is the one the plan
 * was made from.
 */
export function withRemovedContent(plan: Plan, live: LiveState): Plan {
  const removing = (c: Change) => (c.action === 'delete' || c.action === 'replace') && c.kind !== 'FolderPermissions';
  if (!plan.changes.some(removing)) return plan;
  const specs = liveSpecs(plan.changes.filter(removing), live);
  return {
    ...plan,
    changes: plan.changes.map((c) => {
      const content = specs.get(c.address);
      return content === undefined ? c : { ...c, removes: content };
    }),
  };
}

/**
 * The live object of each change that has one (every action but `create`), by address: its
 * `spec` as `mftops import` would write it (names, not ids; a folder's entries with
 * `mode: exact`), secrets as `$sensitive` markers. What policies see as `oldObject`, and as
 * `object` too on the live state (drift). Pure.
 */
export function liveSpecs(changes: readonly Change[], live: LiveState): Map<string, JsonObject> {
  const catalog = createImportCatalog({
    hosts: live.automation?.hosts?.items ?? [],
    scripts: live.automation?.scripts?.items ?? [],
    dateLists: live.automation?.dateLists?.items ?? [],
  });
  const secrets = createSecretRedactor(sensitiveValue);
  const aclsById = new Map([...(live.automation?.acls?.values() ?? [])].map((a) => [a.ACLID, a]));
  const specOfChange = (change: Change): JsonObject | undefined => {
    if (change.action === 'create') return undefined;
    switch (change.kind) {
      case 'Task': {
        const task = change.liveId === undefined ? undefined : live.automation?.tasks?.byId.get(change.liveId);
        return task === undefined ? undefined : specOf(taskToManifest(task, catalog, secrets).document);
      }
      case 'ResourceGroupAcl': {
        const acl = change.liveId === undefined ? undefined : aclsById.get(change.liveId);
        return acl === undefined ? undefined : specOf(aclToManifest(acl).document);
      }
      case 'FolderPermissions': {
        const folder = live.transfer?.folders.get(folderKey(change.previousName ?? change.name));
        return folder === undefined || folder === null ? undefined : specOf(folderToManifest(folder).document);
      }
      case 'Group': {
        const group = change.liveId === undefined ? undefined : live.transfer?.groups?.byId.get(change.liveId);
        const members = group === undefined ? undefined : live.transfer?.groupMembers?.members.get(group.name.toLowerCase());
        return group === undefined ? undefined : specOf(groupToManifest({ group, members }).document);
      }
      default: {
        const never: never = change.kind;
        throw new Error(`unknown kind ${String(never)}`);
      }
    }
  };
  const out = new Map<string, JsonObject>();
  for (const c of changes) {
    const spec = specOfChange(c);
    if (spec !== undefined) out.set(c.address, spec);
  }
  return out;
}

function specOf(document: Readonly<Record<string, unknown>>): JsonObject {
  const spec = asFieldValue(document.spec);
  return spec !== null && typeof spec === 'object' && !Array.isArray(spec) ? spec : {};
}
