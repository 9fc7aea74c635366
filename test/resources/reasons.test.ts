import { describe, expect, it } from 'vitest';
import type { ChangeReason, EntryReason, ReasonCode } from '../../src/plan/model.js';
import { describeReason } from '../../src/resources/reasons.js';

type AnyReason = ChangeReason | EntryReason;

/**
 * Every reason code with the sentence it renders, as the planner wrote it into plans before the
 * codes existed. Keyed by code, so a code added without a row here fails the type check.
 */
const SENTENCES: { readonly [C in ReasonCode]: readonly (readonly [Extract<AnyReason, { code: C }>, string])[] } = {
  'advanced-task': [
    [{ code: 'advanced-task', operation: 'create' }, 'advanced (TT=COS) tasks cannot be created through the API'],
    [{ code: 'advanced-task', operation: 'update' }, 'advanced (TT=COS) tasks cannot be changed through the API'],
  ],
  'task-group-immutable': [
    [{ code: 'task-group-immutable', lostSecrets: [] }, '`Group` cannot change after creation: the task is deleted and created again'],
    [
      { code: 'task-group-immutable', lostSecrets: ['Parameters.ApiKey', 'steps[0].Source.Password'] },
      '`Group` cannot change after creation: the task is deleted and created again; secrets the server does not show and the manifest does not carry (Parameters.ApiKey, steps[0].Source.Password) cannot be copied and are lost: write them in the manifest as `${env:…}`',
    ],
  ],
  pruned: [
    [{ code: 'pruned', kind: 'Task', scope: ['Finance', 'Partners'] }, 'no manifest manages this task in scope (Finance, Partners), and Tasks are pruned'],
    [{ code: 'pruned', kind: 'ResourceGroupAcl', scope: ['Finance'] }, 'no manifest manages this ACL in scope (Finance), and ResourceGroupAcls are pruned'],
  ],
  'folder-pruned': [
    [{ code: 'folder-pruned' }, 'no manifest manages this folder in scope, and FolderPermissions are pruned: its removable entries are deleted'],
  ],
  'folder-root-rename': [[{ code: 'folder-root-rename', from: '/Inbound' }, 'the root folder /Inbound cannot be renamed']],
  'folder-move': [
    [
      { code: 'folder-move', from: '/Distribution/Globex/Inbound', to: '/Distribution/Acme/Incoming' },
      '/Distribution/Globex/Inbound → /Distribution/Acme/Incoming moves the folder to another parent folder; the API can only rename it in place: move it on the transfer server (or rename it without moving), then plan again',
    ],
  ],
  'folder-copies-parent': [
    [
      { code: 'folder-copies-parent', parentPath: '/Finance', inheritPermissions: 'CopyOnly' },
      'created under /Finance with a copy of its permissions (CopyOnly)',
    ],
    [{ code: 'folder-copies-parent', parentPath: '/Finance', inheritPermissions: 'Always' }, 'created under /Finance with a copy of its permissions (Always)'],
  ],
  'entries-not-editable': [
    [
      {
        code: 'entries-not-editable',
        principals: [
          { type: 'User', name: 'carol' },
          { type: 'Group', name: 'Acme Partners' },
        ],
        partial: true,
      },
      'user carol, group Acme Partners: not editable on the server; the other entries are applied',
    ],
    [
      { code: 'entries-not-editable', principals: [{ type: 'User', name: 'carol' }], partial: false },
      'user carol: not editable on the server; the wanted change cannot be made through the API',
    ],
  ],
  'entry-not-editable': [
    [{ code: 'entry-not-editable', principal: { type: 'User', name: 'carol' } }, 'the entry of user carol cannot be changed on the server (not editable)'],
  ],
  'entry-copied-from-parent': [[{ code: 'entry-copied-from-parent' }, 'copied from the parent folder']],
  'user-rename': [
    [
      { code: 'user-rename', from: 'jsmith' },
      'the API cannot rename a user: jsmith keeps its name (rename it on the transfer server, or drop it from previousNames to create a new user)',
    ],
  ],
  'user-pruned': [
    [
      { code: 'user-pruned', scope: ['partner-*'] },
      'no manifest manages this user in scope (partner-*), and Users are pruned: the account is deleted with its settings; to keep it but stop its sign-on, declare it with `status: Suspended` instead',
    ],
  ],
  'group-not-updatable': [
    [
      { code: 'group-not-updatable', partial: true },
      'the file transfer API of this release has no group update/delete: the description cannot be changed through the API; the member changes are applied',
    ],
    [
      { code: 'group-not-updatable', partial: false },
      'the file transfer API of this release has no group update/delete: the description cannot be changed through the API',
    ],
  ],
  'group-not-deletable': [
    [
      { code: 'group-not-deletable' },
      'no manifest manages this group, and Groups are pruned, but the file transfer API of this release has no group update/delete: delete it on the server, or import it',
    ],
  ],
  'group-members-unknown': [
    [
      { code: 'group-members-unknown' },
      "the transfer server does not tell this group's members (no members form answered, or the account may not read them): nothing is changed rather than guessed",
    ],
  ],
};

const ROWS: [string, AnyReason, string][] = Object.values(SENTENCES).flatMap((rows) =>
  rows.map(([reason, text]): [string, AnyReason, string] => [JSON.stringify(reason), reason, text]),
);

describe('describeReason', () => {
  it.each(ROWS)('%s', (_label, reason, sentence) => {
    expect(describeReason(reason)).toBe(sentence);
  });

  it('refuses a code it does not know (a plan from a newer mftops), naming it', () => {
    expect(() => describeReason({ code: 'from-the-future' } as unknown as AnyReason)).toThrow(/from-the-future/);
  });
});
