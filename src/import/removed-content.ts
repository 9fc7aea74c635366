import type { LiveState } from '../live/model.js';
import type { Change, JsonObject, Plan } from '../plan/model.js';
import { asFieldValue, sensitiveValue } from '../resources/common.js';
import { aclToManifest, createImportCatalog, createSecretRedactor, taskToManifest } from './to-manifest.js';

/**
 * What each delete (and the delete of each replace) of `plan` removes, as Terraform shows what it
 * destroys: the live object's `spec` as `mftops import` would write it (the same converter),
 * secrets as `$sensitive` markers. Tasks and resource-group ACLs only: a folder's delete already
 * lists every entry it removes, with its permissions. Pure; the live state is the one the plan
 * was made from.
 */
export function withRemovedContent(plan: Plan, live: LiveState): Plan {
  const removing = (c: Change) => c.action === 'delete' || c.action === 'replace';
  if (!plan.changes.some(removing)) return plan;
  const catalog = createImportCatalog({
    hosts: live.automation?.hosts?.items ?? [],
    scripts: live.automation?.scripts?.items ?? [],
    dateLists: live.automation?.dateLists?.items ?? [],
  });
  const secrets = createSecretRedactor(sensitiveValue);
  const aclsById = new Map([...(live.automation?.acls?.values() ?? [])].map((a) => [a.ACLID, a]));
  const removes = (change: Change): JsonObject | undefined => {
    if (!removing(change)) return undefined;
    switch (change.kind) {
      case 'Task': {
        const task = change.liveId === undefined ? undefined : live.automation?.tasks?.byId.get(change.liveId);
        return task === undefined ? undefined : specOf(taskToManifest(task, catalog, secrets).document);
      }
      case 'ResourceGroupAcl': {
        const acl = change.liveId === undefined ? undefined : aclsById.get(change.liveId);
        return acl === undefined ? undefined : specOf(aclToManifest(acl).document);
      }
      case 'FolderPermissions':
        return undefined;
      default: {
        const never: never = change.kind;
        throw new Error(`unknown kind ${String(never)}`);
      }
    }
  };
  return {
    ...plan,
    changes: plan.changes.map((c) => {
      const content = removes(c);
      return content === undefined ? c : { ...c, removes: content };
    }),
  };
}

function specOf(document: Readonly<Record<string, unknown>>): JsonObject {
  const spec = asFieldValue(document.spec);
  return spec !== null && typeof spec === 'object' && !Array.isArray(spec) ? spec : {};
}
