import type { ChangeReason, EntryReason, Principal } from './model.js';

/**
 * The sentence of a reason code (pure), beside the codes it words: the one wording of every reason, for every renderer (plan
 * text and markdown, the JSON view, drift reports, the apply summary, the Action's comments). The
 * text is raw: each medium escapes it as it escapes any other user value.
 */
export function describeReason(reason: ChangeReason | EntryReason): string {
  switch (reason.code) {
    case 'advanced-task':
      return `advanced (TT=COS) tasks cannot be ${reason.operation === 'create' ? 'created' : 'changed'} through the API`;
    case 'task-group-immutable': {
      const lost = reason.lostSecrets;
      const tail =
        lost.length > 0
          ? `; secrets the server does not show and the manifest does not carry (${lost.join(', ')}) cannot be copied and are lost: write them in the manifest as \`\${env:…}\``
          : '';
      return `\`Group\` cannot change after creation: the task is deleted and created again${tail}`;
    }
    case 'pruned': {
      const [what, kinds] = PRUNED_WORDS[reason.kind];
      return `no manifest manages this ${what} in scope (${reason.scope.join(', ')}), and ${kinds} are pruned`;
    }
    case 'folder-pruned':
      return 'no manifest manages this folder in scope, and FolderPermissions are pruned: its removable entries are deleted';
    case 'folder-root-rename':
      return `the root folder ${reason.from} cannot be renamed`;
    case 'folder-move':
      return `${reason.from} → ${reason.to} moves the folder to another parent folder; the API can only rename it in place: move it on the transfer server (or rename it without moving), then plan again`;
    case 'folder-copies-parent':
      return `created under ${reason.parentPath} with a copy of its permissions (${reason.inheritPermissions})`;
    case 'entries-not-editable':
      return `${reason.principals.map(principalWords).join(', ')}: not editable on the server; ${reason.partial ? 'the other entries are applied' : 'the wanted change cannot be made through the API'}`;
    case 'entry-not-editable':
      return `the entry of ${principalWords(reason.principal)} cannot be changed on the server (not editable)`;
    case 'entry-copied-from-parent':
      return 'copied from the parent folder';
    case 'user-rename':
      return `the API cannot rename a user: ${reason.from} keeps its name (rename it on the transfer server, or drop it from previousNames to create a new user)`;
    case 'user-pruned':
      return `no manifest manages this user in scope (${reason.scope.join(', ')}), and Users are pruned: the account is deleted with its settings; to keep it but stop its sign-on, declare it with \`status: Suspended\` instead`;
    case 'group-not-updatable':
      return `the file transfer API of this release has no group update/delete: the description cannot be changed through the API${reason.partial ? '; the member changes are applied' : ''}`;
    case 'group-not-deletable':
      return 'no manifest manages this group, and Groups are pruned, but the file transfer API of this release has no group update/delete: delete it on the server, or import it';
    case 'group-members-unknown':
      return "the transfer server does not tell this group's members (no members form answered, or the account may not read them): nothing is changed rather than guessed";
    default: {
      const never: never = reason;
      throw new Error(`unknown reason ${JSON.stringify(never)}`);
    }
  }
}

/**
 * The words of a `pruned` reason's kind: what one object is called, and the kind as `prune` lists
 * it. Here, not in the kind's definition: src/resources sits below src/kinds.
 */
const PRUNED_WORDS: { readonly [K in Extract<ChangeReason, { code: 'pruned' }>['kind']]: readonly [string, string] } = {
  Task: ['task', 'Tasks'],
  ResourceGroupAcl: ['ACL', 'ResourceGroupAcls'],
};

/** `user alice`, `group Acme Partners`. */
function principalWords(p: Principal): string {
  return `${p.type === 'User' ? 'user' : 'group'} ${p.name}`;
}
