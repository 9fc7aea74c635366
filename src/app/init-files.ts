/**
 * The starter files `mftops init` writes (pure: texts only; src/app/init.ts writes them). Each
 * validates as it is (`mftops validate` passes on a fresh project) and is in canonical form
 * (`mftops fmt --check` passes): test/app/init.test.ts holds both.
 */

/** What the starter texts are made for. */
export interface StarterSettings {
  /** The one environment of the configuration, and of the workflows' matrix. */
  readonly environment: string;
  /** What the file at `path` (relative to the project) names as its schema `file` (see `schemaRef` in src/import/write-files.ts). */
  readonly schema: (file: string, path: string) => string;
}

/** Path (relative to the project folder, `/`-separated) → text. */
export function starterFiles(s: StarterSettings): Record<string, string> {
  const at = (path: string) => (file: string) => s.schema(file, path);
  return {
    'mftops.yaml': config(s.environment, at('mftops.yaml')),
    'manifests/tasks/example-task.yaml': task(at('manifests/tasks/example-task.yaml')),
    'manifests/access/example-acl.yaml': acl(at('manifests/access/example-acl.yaml')),
    'manifests/folders/example-folder.yaml': folder(at('manifests/folders/example-folder.yaml')),
    // Snapshots hold the automation server's export, passwords in clear: never in git.
    '.mftops/.gitignore': '# Snapshots hold passwords in clear: keep them out of git.\n*\n',
  };
}

function lines(...text: string[]): string {
  return text.map((l) => `${l}\n`).join('');
}

function config(environment: string, schema: (file: string) => string): string {
  return lines(
    `# yaml-language-server: $schema=${schema('config.schema.json')}`,
    '# mftops configuration: the servers of each environment, where its manifests are, and what',
    '# mftops manages there. Paths are relative to this file. Secrets are never written here:',
    '# ${env:NAME} and ${file:PATH} are read when a command needs them. Next steps:',
    '#   mftops validate   check the manifests (no server needed)',
    '#   mftops status     check the URLs and credentials below',
    '#   mftops plan       see what would change on the servers',
    'apiVersion: mftops/v1',
    'kind: Config',
    'environments:',
    `  ${environment}:`,
    '    # The task-automation server: tasks and resource-group ACLs. Remove the block to manage',
    '    # only the file transfer server.',
    '    automation:',
    '      url: https://automation.example.com',
    '      username: ${env:MFT_AUTOMATION_USER}',
    '      password: ${env:MFT_AUTOMATION_PASSWORD}',
    '    # The file transfer server: folder permissions. Remove the block to manage only the',
    '    # automation server.',
    '    transfer:',
    '      url: https://transfer.example.com',
    '      username: ${env:MFT_TRANSFER_USER}',
    '      password: ${env:MFT_TRANSFER_PASSWORD}',
    '    manifests: [manifests]',
    '    # What counts as managed: drift reports the objects here that no manifest names.',
    '    scope: { taskGroups: [Operations], folders: [/Reports] }',
    '    # Kinds whose unmanaged objects in scope plan deletes (apply also needs --allow-delete).',
    '    prune: []',
    '# Backups taken before every apply; .mftops/.gitignore keeps them out of git.',
    'snapshots: { dir: .mftops/snapshots, keep: 30 }',
  );
}

function task(schema: (file: string) => string): string {
  return lines(
    `# yaml-language-server: $schema=${schema('task.schema.json')}`,
    '# An example task: every weekday at 06:30, copy the day\'s reports from the automation',
    '# server\'s disk to the file transfer server. Put in your hosts, paths and resource group,',
    '# then run mftops plan. mftops explain CODE says what a message means.',
    'apiVersion: mftops/v1',
    'kind: Task',
    'metadata:',
    '  name: Example daily reports',
    'spec:',
    '  # Created paused: set 1 once the plan looks right.',
    '  Active: 0',
    '  # Resource groups are fixed when a task is created: changing them replaces the task.',
    '  Group: [Operations]',
    '  Info: { Description: Copies the daily reports to the file transfer server }',
    '  Schedules:',
    '    Schedule:',
    '      - Days: { DayOfWeek: [Monday, Tuesday, Wednesday, Thursday, Friday] }',
    '        Frequency: { Interval: [{ StartTime: "06:30", EndTime: "06:30" }] }',
    '  steps:',
    '    # Hosts by their name on the automation server.',
    '    - Source: { Host: local-fs, Path: D:\\Reports\\Daily, FileMask: "*.csv", DeleteOrig: 0 }',
    '    - Destination: { Host: xfer, Path: /Reports, OverwriteOrig: 1 }',
  );
}

function acl(schema: (file: string) => string): string {
  return lines(
    `# yaml-language-server: $schema=${schema('resource-group-acl.schema.json')}`,
    '# An example resource-group ACL: what the members of one user group of the automation server',
    '# may do with the tasks of one resource group. Permissions not listed are taken away.',
    'apiVersion: mftops/v1',
    'kind: ResourceGroupAcl',
    'metadata:',
    '  # A label, used in addresses: ResourceGroupAcl/operations-auditors.',
    '  name: operations-auditors',
    'spec:',
    '  resourceGroup: Operations',
    '  userGroup: Auditors',
    '  permissions: [TaskRun]',
  );
}

function folder(schema: (file: string) => string): string {
  return lines(
    `# yaml-language-server: $schema=${schema('folder-permissions.schema.json')}`,
    '# An example of folder permissions on the file transfer server.',
    'apiVersion: mftops/v1',
    'kind: FolderPermissions',
    'metadata:',
    '  name: /Reports',
    'spec:',
    '  # Create the folder when it does not exist (its parent must exist, or be created too),',
    '  # taking nothing from its parent (or CopyOnly: a copy now; Always: keeps inheriting).',
    '  createIfMissing: { inheritPermissions: None }',
    '  # additive: these entries are set, the folder\'s other entries are left alone;',
    '  # exact: the folder has these entries and no others.',
    '  mode: additive',
    '  entries:',
    '    - group: Finance Team',
    '      permissions: [listFiles, readFiles]',
  );
}

/** What a workflow of examples/workflows becomes in a project `mftops init` writes. */
export interface WorkflowSettings {
  /** `uses:` of the action, e.g. `mftops/mftops@v1`. */
  readonly action: string;
  /** The project folder relative to the repository root (`.` when it is the root), `/`-separated. */
  readonly projectDir: string;
  readonly environment: string;
  /** The example it comes from, named in its first line. */
  readonly source: string;
}

/**
 * An example workflow made to work in the project: the published action instead of this
 * repository's checkout (`uses: ./`), the project folder instead of the examples' `mft/`, and
 * the starter's one environment in the matrix. Throws when the example no longer has the form
 * this expects (a bug: the examples changed without this).
 */
export function adaptWorkflow(text: string, s: WorkflowSettings): string {
  const here = s.projectDir === '.' ? '' : `${s.projectDir}/`;
  const dir = /^[\w./-]+$/.test(s.projectDir) ? s.projectDir : JSON.stringify(s.projectDir);
  let out = replaceAll(text, /^(\s*(?:- )?uses: )\.\/$/gm, `$1${s.action}`, s.source, 'uses: ./');
  out = replaceAll(out, /^(\s*environment: )\[staging, prod\]$/gm, `$1[${s.environment}]`, s.source, 'environment: [staging, prod]');
  out = replaceAll(out, /^(\s*working-directory: )mft$/gm, `$1${dir}`, s.source, 'working-directory: mft');
  out = out.replace(/^(\s*)- 'mft\/\*\*'$/gm, (_m, indent: string) => (here === '' ? `${indent}- 'mftops.yaml'\n${indent}- 'manifests/**'` : `${indent}- '${here}**'`));
  out = out.replace(/\bmft\/\.mftops\//g, `${here}.mftops/`);
  return `# Written by mftops init from ${s.source}.\n${out}`;
}

function replaceAll(text: string, pattern: RegExp, replacement: string, source: string, what: string): string {
  if (!pattern.test(text)) throw new Error(`${source} has no line \`${what}\`: mftops init no longer matches the example workflows`);
  pattern.lastIndex = 0;
  return text.replace(pattern, replacement);
}
