import type { ImportReadContext } from '../kind-io.js';
import { importReader } from '../kind-io.js';
import type { AclImportPart } from './import.js';

/** Every resource-group ACL: one list, filtered by the selection afterwards. */
export async function readAclsForImport(context: ImportReadContext): Promise<AclImportPart> {
  return { acls: await importReader(context.automation, 'ACLs', 'automation').listResourceGroupAcls() };
}
