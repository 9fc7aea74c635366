import { describe, expect, it } from 'vitest';
import { CreatedIds, MissingIdError } from '../../src/kinds/created-ids.js';
import { FOLDER_PERMISSIONS_IO } from '../../src/kinds/folder-permissions/io.js';
import type { StepContext, TransferWriter } from '../../src/kinds/kind-io.js';
import type { Change } from '../../src/plan/model.js';

describe('the table of ids of one apply', () => {
  it('gives a later change the id an earlier one created, whatever the case of its address', () => {
    const ids = new CreatedIds();
    ids.record('FolderPermissions/Partners/Acme', '41');
    expect(ids.idOf('FolderPermissions/partners/ACME')).toBe('41');
    expect(ids.require('FolderPermissions/Partners/Acme', 'create /Partners/Acme/In')).toBe('41');
  });

  it('refuses a reference to an object no change of the apply made known', () => {
    const ids = new CreatedIds();
    ids.record('Task/Empty id', '');
    expect(ids.idOf('Task/Empty id')).toBeUndefined();
    expect(() => ids.require('FolderPermissions/Partners/Acme', 'create /Partners/Acme/In under /Partners/Acme')).toThrow(MissingIdError);
    expect(() => ids.require('FolderPermissions/Partners/Acme', 'create /Partners/Acme/In under /Partners/Acme')).toThrow(
      'cannot create /Partners/Acme/In under /Partners/Acme: FolderPermissions/Partners/Acme has no id (the change that makes it did not succeed)',
    );
  });

  it('a folder created under a folder this plan creates takes its parent id from the table, and sends nothing without it', async () => {
    const calls: string[] = [];
    const transfer = {
      findFolderByPath: async (path: string) => (calls.push(`find ${path}`), null),
      createSubfolder: async (parentId: string, body: { name: string }) => (
        calls.push(`create ${body.name} under ${parentId}`), { id: '77', name: body.name, path: `/Partners/Acme/${body.name}` }
      ),
    } as unknown as TransferWriter;
    const change: Change = {
      address: 'FolderPermissions/Partners/Acme/In',
      kind: 'FolderPermissions',
      name: '/Partners/Acme/In',
      service: 'transfer',
      action: 'create',
      needs: 'FolderPermissions/Partners/Acme',
      fields: [],
      payload: {
        kind: 'FolderPermissions',
        path: '/Partners/Acme/In',
        create: { parentPath: '/Partners/Acme', name: 'In', inheritPermissions: 'None' },
        set: [],
        remove: [],
      },
    };
    const [create] = FOLDER_PERMISSIONS_IO.planSteps(change, change.payload);
    expect(create).toMatchObject({ op: 'folder-create', parentAddress: 'FolderPermissions/Partners/Acme', parentMadeHere: true });

    const refused: StepContext = { clients: { transfer }, created: new CreatedIds() };
    await expect(FOLDER_PERMISSIONS_IO.sendStep(create!, refused)).rejects.toThrow(MissingIdError);
    expect(calls).toEqual([]);

    const made: StepContext = { clients: { transfer }, created: new CreatedIds() };
    made.created.record('FolderPermissions/Partners/Acme', '41');
    expect(await FOLDER_PERMISSIONS_IO.sendStep(create!, made)).toEqual({ folder: '77' });
    expect(calls).toEqual(['create In under 41']);
  });
});
