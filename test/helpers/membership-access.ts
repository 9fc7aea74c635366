import type { LiveFolder } from '../../src/live/model.js';
import { folderKey } from '../../src/live/model.js';
import type { AccessBasis } from '../../src/kinds/kind.js';
import type { EntryView } from '../../src/kinds/folder-permissions/plan.js';
import { assemblePlan } from '../../src/plan/assemble-plan.js';
import { planAccessChanges } from '../../src/plan/access-changes.js';
import type { TransferAccess } from '../../src/plan/access-changes.js';
import type { Change, Plan } from '../../src/plan/model.js';
import { FOLDER_PERMISSIONS } from '../../src/vocabulary.js';

/**
 * Hand-built membership changes for the access review (issue 26): a Group plan's output, a
 * `membership` AccessBasis keyed by the group change's address, made by hand next to folder
 * changes and the live folders the plan read, so that the renderers' cases stay small and exact.
 */

/** One ACL entry of a live folder: `['Group', 'Partners', ['readFiles', 'listFiles']]`. */
export type EntrySpec = readonly [type: 'User' | 'Group', name: string, permissions: readonly string[]];

/** A live folder as the plan read it; principals' ids are their lower-cased names. */
export function liveFolder(id: number, path: string, entries: readonly EntrySpec[]): LiveFolder {
  return {
    folder: { id: String(id), name: path.split('/').pop()!, path },
    acl: entries.map(([type, name, permissions]) => ({
      type,
      id: name.toLowerCase(),
      name,
      permissions: Object.fromEntries(FOLDER_PERMISSIONS.map((p) => [p, permissions.includes(p)])),
    })),
  };
}

/** Entries as a folder basis holds them. */
export function entryViews(entries: readonly EntrySpec[]): EntryView[] {
  return entries.map(([type, name, permissions]) => ({
    type,
    id: name.toLowerCase(),
    name,
    permissions: { permissions: FOLDER_PERMISSIONS.filter((p) => permissions.includes(p)), sharePermissions: [] },
    editable: true,
    deletable: true,
  }));
}

/** A write change as the plan lists it (only what the access review reads of it). */
export function changeOf(address: string, action: Change['action'] = 'update', liveId?: string): Change {
  const slash = address.indexOf('/');
  const kind = address.slice(0, slash);
  return {
    address,
    kind,
    // A folder path's leading slash doubles as the separator of its address.
    name: kind === 'FolderPermissions' ? address.slice(slash) : address.slice(slash + 1),
    service: 'transfer',
    action,
    fields: [],
    ...(liveId === undefined ? {} : { liveId }),
  } as unknown as Change;
}

/** The transfer live state the access review reads: folders by key, members by lower-cased group name. */
export function transferOf(folders: readonly LiveFolder[], members: Readonly<Record<string, readonly string[]>>): TransferAccess {
  return {
    folders: new Map(folders.map((f) => [folderKey(f.folder.path), f])),
    groupMembers: { form: 'members', members: new Map(Object.entries(members).map(([g, users]) => [g.toLowerCase(), users])) },
  };
}

/** A membership basis: the group's usernames before and after. */
export function membership(group: string, before: readonly string[], after: readonly string[]): AccessBasis {
  return { kind: 'membership', group, before, after };
}

/**
 * The small case: group Partners grants readFiles, listFiles on /Partners/Acme and /Partners/Globex
 * and admin on /Partners/Admin; alice is a member. The plan adds bob and removes carol from
 * Partners and, in the same plan, removes Partners' entry from /Partners/Globex.
 */
export function smallMembershipCase(): { changes: Change[]; bases: Map<string, AccessBasis>; transfer: TransferAccess } {
  const partners: EntrySpec = ['Group', 'Partners', ['readFiles', 'listFiles']];
  const acme = liveFolder(11, '/Partners/Acme', [partners, ['User', 'dave', ['readFiles']]]);
  const globex = liveFolder(12, '/Partners/Globex', [partners]);
  const admin = liveFolder(13, '/Partners/Admin', [['Group', 'Partners', ['admin', 'listFiles']]]);
  const other = liveFolder(14, '/Other', [['Group', 'Others', ['readFiles']]]);
  const changes = [changeOf('FolderPermissions/Partners/Globex', 'update', '12'), changeOf('Group/Partners')];
  const bases = new Map<string, AccessBasis>([
    ['FolderPermissions/Partners/Globex', { kind: 'folder', before: entryViews([partners]), after: [] }],
    ['Group/Partners', membership('Partners', ['alice', 'carol'], ['alice', 'bob'])],
  ]);
  return { changes, bases, transfer: transferOf([acme, globex, admin, other], { Partners: ['alice', 'carol'], Others: ['erin'] }) };
}

/**
 * The large case: group Partners grants readFiles, listFiles on `folders` folders and admin on
 * one more; the plan adds `users` users to it (user01…), one of whom (user01) already reads
 * half the folders through their own entry.
 */
export function largeMembershipCase(folders = 200, users = 30): { changes: Change[]; bases: Map<string, AccessBasis>; transfer: TransferAccess } {
  const pad = (n: number) => String(n).padStart(3, '0');
  const live = Array.from({ length: folders }, (_, i) =>
    liveFolder(100 + i, `/Partners/Partner ${pad(i + 1)}/Outbound`, [
      ['Group', 'Partners', ['readFiles', 'listFiles']],
      ...(i % 2 === 0 ? [['User', 'user01', ['readFiles']] as const] : []),
    ]),
  );
  live.push(liveFolder(99, '/Partners', [['Group', 'Partners', ['admin', 'listFiles']]]));
  const added = Array.from({ length: users }, (_, i) => `user${String(i + 1).padStart(2, '0')}`);
  const bases = new Map<string, AccessBasis>([['Group/Partners', membership('Partners', ['alice'], ['alice', ...added])]]);
  return { changes: [changeOf('Group/Partners')], bases, transfer: transferOf(live, { Partners: ['alice'] }) };
}

/**
 * A plan of these changes with their access report, for the renderers: each folder change with
 * its group entry removed, and each Group change with the members its basis adds and removes, as
 * the Group kind words them (`+ members: "bob"`, `- members: "carol"`).
 */
export function membershipPlan(input: { changes: Change[]; bases: Map<string, AccessBasis>; transfer: TransferAccess }): Plan {
  const access = planAccessChanges(input.changes, input.bases, input.transfer);
  const header = {
    toolVersion: '0.1.0',
    createdAt: '2026-11-27T12:00:00.000Z',
    environment: 'prod',
    servers: { transfer: { url: 'https://transfer.example.com/api/v1', username: 'admin' } },
    manifestDigest: `sha256:${'ab'.repeat(32)}`,
  };
  const listed = input.changes.map((c): Change => {
    if (c.kind === 'FolderPermissions')
      return {
        ...c,
        entries: [
          {
            principal: { type: 'Group' as const, name: 'Partners' },
            action: 'delete' as const,
            before: { permissions: ['readFiles', 'listFiles'], sharePermissions: [] },
          },
        ],
      };
    const basis = input.bases.get(c.address);
    if (basis?.kind !== 'membership') return c;
    const had = new Set(basis.before.map((u) => u.toLowerCase()));
    const has = new Set(basis.after.map((u) => u.toLowerCase()));
    return {
      ...c,
      fields: [
        ...basis.after.filter((u) => !had.has(u.toLowerCase())).map((u) => ({ path: 'members', after: u })),
        ...basis.before.filter((u) => !has.has(u.toLowerCase())).map((u) => ({ path: 'members', before: u })),
      ],
    };
  });
  return assemblePlan(header, listed, false, access);
}
