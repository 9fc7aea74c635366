import { stringify } from 'yaml';
import { aclToManifest, createImportCatalog, createSecretNamer, folderToManifest, taskToManifest as importTask } from '../../src/import/to-manifest.js';
import type { LiveFolder, LiveState } from '../../src/live/model.js';
import type { ResourceGroupAcl, Task } from '../../src/services/automation/types.js';

/**
 * Test helper: a manifest written from a live object by `mftops import`'s own code
 * (src/import/to-manifest.ts). Tests plan such manifests against the same server and expect no
 * change.
 */

type Obj = Record<string, unknown>;

export function taskManifest(task: Task, live: LiveState): Obj {
  const a = live.automation!;
  const catalog = createImportCatalog({ hosts: a.hosts?.items ?? [], scripts: a.scripts?.items ?? [], dateLists: a.dateLists?.items ?? [] });
  return { ...importTask(task, catalog, createSecretNamer()).document };
}

export function aclManifest(acl: ResourceGroupAcl): Obj {
  return { ...aclToManifest(acl).document };
}

export function folderManifest(folder: LiveFolder): Obj {
  return { ...folderToManifest(folder).document };
}

/** Documents as one multi-document YAML file. */
export function toYaml(documents: readonly Obj[]): string {
  return documents.map((d) => stringify(d)).join('---\n');
}
