import type { AnySchemaObject } from 'ajv/dist/2020.js';
import { getKindSchema } from '../manifest/schemas.js';
import { API_VERSION } from '../manifest/types.js';
import type { ManifestDraft } from '../kinds/kind-import.js';
import { folderManifestOf } from '../kinds/folder-permissions/to-manifest.js';
import { groupManifestOf } from '../kinds/group/to-manifest.js';
import type { LiveGroupMembers } from '../kinds/group/to-manifest.js';
import { aclManifestOf } from '../kinds/resource-group-acl/to-manifest.js';
import { taskManifestOf } from '../kinds/task/to-manifest.js';
import type { ImportCatalog } from '../kinds/task/to-manifest.js';
import { userManifestOf } from '../kinds/user/to-manifest.js';
import type { LiveFolder } from '../live/model.js';
import type { ResourceGroupAcl, Task } from '../services/automation/types.js';
import type { TransferUser, TransferUserDetails } from '../services/transfer/types.js';
import type { ImportedManifest, SecretNamer, SecretPlaceholder } from './model.js';
import { shapeToSchema } from './shape-to-schema.js';

/**
 * Live objects → minimal manifests. Each kind makes the draft of its objects in its own folder
 * (`src/kinds/<kind>/to-manifest.ts`, pure: what "minimal" means for it); this module shapes a
 * draft to its kind's schema (`finishManifest`: the schemas are files, which the kinds do not
 * read) and hands out the secrets' placeholders.
 */

export type { ImportCatalog } from '../kinds/task/to-manifest.js';
export type { SecretNamer } from './model.js';
export { createImportCatalog } from '../kinds/task/to-manifest.js';
export { aclLabel } from '../kinds/resource-group-acl/to-manifest.js';

export function createSecretNamer(): SecretNamer {
  const used = new Set<string>();
  const out: SecretPlaceholder[] = [];
  return {
    placeholder(address, field, parts) {
      let base = parts
        .join('_')
        .normalize('NFKD')
        .replace(/[\u0300-\u036f]/g, '')
        .toUpperCase()
        .replace(/[^A-Z0-9]+/g, '_')
        .replace(/^_+|_+$/g, '');
      if (base === '' || /^[0-9]/.test(base)) base = `MFTOPS_${base}`.replace(/_+$/, '');
      let variable = base;
      for (let n = 2; used.has(variable); n++) variable = `${base}_${n}`;
      used.add(variable);
      out.push({ variable, address, field });
      return `\${env:${variable}}`;
    },
    list: () => [...out],
  };
}

/** Secrets as `mark()` makes them (a `$sensitive` marker): nothing to set, so nothing listed. */
export function createSecretRedactor(mark: () => unknown): SecretNamer {
  return { placeholder: () => mark(), list: () => [] };
}

/** A kind's draft as the manifest document import writes: keys in schema order, fields the schema has no place for left out (and noted). */
export function finishManifest(draft: ManifestDraft): ImportedManifest {
  const { kind, name, address, metadataName, spec, notes } = draft;
  const root = getKindSchema(kind);
  const specSchema = (root.properties as Record<string, AnySchemaObject>).spec!;
  const shaped = shapeToSchema(spec, specSchema, root, '', notes);
  const document = { apiVersion: API_VERSION, kind, metadata: { name: metadataName }, spec: shaped };
  return { kind, name, address, document, notes };
}

// One live object to its manifest, for callers that convert one of a known kind (drift --adopt,
// tests); import itself goes through the registry (`KindDefinition.importer`).

export function taskToManifest(task: Task, catalog: ImportCatalog, secrets: SecretNamer): ImportedManifest {
  return finishManifest(taskManifestOf(task, catalog, secrets));
}

export function aclToManifest(acl: ResourceGroupAcl, label?: string): ImportedManifest {
  return finishManifest(aclManifestOf(acl, label));
}

export function folderToManifest(folder: LiveFolder): ImportedManifest {
  return finishManifest(folderManifestOf(folder));
}

/** A user by its username: the fields that differ from a new account's (src/kinds/user/to-manifest.ts); never a password. */
export function userToManifest(user: TransferUser, details?: TransferUserDetails): ImportedManifest {
  return finishManifest(userManifestOf(user, details));
}

/** A live transfer group as its minimal manifest (`groupManifestSpec`). */
export function groupToManifest(live: LiveGroupMembers): ImportedManifest {
  return finishManifest(groupManifestOf(live));
}
