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
    "# An example task: every weekday at 06:30, copy the day's reports from the automation",
    "# server's disk to the file transfer server. Put in your hosts, paths and resource group,",
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
    "  # additive: these entries are set, the folder's other entries are left alone;",
    '  # exact: the folder has these entries and no others.',
    '  mode: additive',
    '  entries:',
    '    - group: Finance Team',
    '      permissions: [listFiles, readFiles]',
  );
}

/**
 * Where the workflows' action comes from:
 * - `installed`: the mftops package the repository installs (`uses: ./PATH/node_modules/mftops`);
 *   a local action path always resolves once `npm ci` has run in `installDir`, and
 *   package-lock.json pins its version, so each job that runs the action gets that step first;
 * - `ref`: a published action as given to `init --action-ref` (`OWNER/REPO[/PATH]@REF`).
 */
export type WorkflowAction =
  | { readonly kind: 'installed'; readonly uses: string; readonly installDir: string }
  | { readonly kind: 'ref'; readonly uses: string };

/** What a workflow of examples/workflows becomes in a project `mftops init` writes. */
export interface WorkflowSettings {
  readonly action: WorkflowAction;
  /** The project folder relative to the repository root (`.` when it is the root), `/`-separated. */
  readonly projectDir: string;
  readonly environment: string;
  /** The example it comes from, named in its first line. */
  readonly source: string;
}

/**
 * An example workflow made to work in the project: the action the project can resolve instead of
 * this repository's checkout (`uses: ./`), the project folder instead of the examples' `mft/`, the
 * starter's one environment in the matrix, and none of the comments that only make sense in this
 * repository. Throws when the example no longer has the form this expects (a bug: the examples
 * changed without this; test/app/init.test.ts holds it).
 */
export function adaptWorkflow(text: string, s: WorkflowSettings): string {
  const here = s.projectDir === '.' ? '' : `${s.projectDir}/`;
  const dir = yamlPath(s.projectDir);
  let out = dropExampleComments(text);
  if (s.action.kind === 'installed') out = installBeforeAction(out, s.action.installDir, s.source);
  out = replaceAll(out, /^(\s*(?:- )?uses: )\.\/$/gm, `$1${s.action.uses}`, s.source, 'uses: ./');
  out = replaceAll(out, /^(\s*environment: )\[staging, prod\]$/gm, `$1[${s.environment}]`, s.source, 'environment: [staging, prod]');
  // The starter has one environment: the example's "staging first" says how to order several.
  out = out.replace(
    /^# - One job per environment, staging first (\(max-parallel: 1, fail-fast\)): prod is not touched when\n#   staging fails\.$/m,
    '# - One job per environment $1: with several, list them in the order to apply,\n#   e.g. [staging, prod], so that prod is not touched when staging fails.',
  );
  // The review rule's document is in the package (or, with --action-ref, in that repository).
  const rules =
    s.action.kind === 'installed'
      ? `${s.action.installDir === '.' ? '' : `${s.action.installDir}/`}node_modules/mftops/examples/workflows/README.md`
      : `examples/workflows/README.md of ${s.action.uses}`;
  out = out.replace(/(?<![\w/])examples\/workflows\/README\.md\b/g, rules);
  out = replaceAll(out, /^(\s*working-directory: )mft$/gm, `$1${dir}`, s.source, 'working-directory: mft');
  out = out.replace(/^(\s*)- 'mft\/\*\*'$/gm, (_m, indent: string) =>
    here === '' ? `${indent}- 'mftops.yaml'\n${indent}- 'manifests/**'` : `${indent}- '${here}**'`,
  );
  out = out.replace(/\bmft\/\.mftops\//g, `${here}.mftops/`);
  const origin =
    s.action.kind === 'installed'
      ? `# Its action is ${s.action.uses}: the mftops package of this repository, at the version\n# package-lock.json pins, installed by the npm ci step before it.\n`
      : `# The action: ${s.action.uses} (mftops init --action-ref).\n`;
  return `# Written by mftops init from ${s.source}.\n${origin}${out}`;
}

/**
 * Without the lines that speak of this repository: the header paragraph on copying the example
 * (its `mft/` folder, `uses: ./`), and the example estate's own secrets.
 */
function dropExampleComments(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    // A comment paragraph (up to the next `#` line or a non-comment) that starts "# Copy to".
    if (/^# Copy to /.test(line)) {
      while (i + 1 < lines.length && /^#\s*\S/.test(lines[i + 1]!)) i++;
      // The `#` line that separated it from the next paragraph goes with it.
      if (i + 1 < lines.length && lines[i + 1] === '#' && out.at(-1) === '#') i++;
      continue;
    }
    // The example manifests' secret: kept as an example of where such secrets go.
    const secret = /^(\s*)(ACME_SFTP_PASSWORD: .*)$/.exec(line);
    out.push(secret ? `${secret[1]}# e.g. ${secret[2]}` : line);
  }
  return out.join('\n');
}

/** An `npm ci` step after the checkout of every job that runs the action (`uses: ./`). */
function installBeforeAction(text: string, installDir: string, source: string): string {
  const lines = text.split('\n');
  const jobsAt = lines.findIndex((l) => /^jobs:\s*$/.test(l));
  if (jobsAt < 0) throw new Error(`${source} has no \`jobs:\`: mftops init no longer matches the example workflows`);
  // Jobs start at the keys two spaces in under `jobs:`.
  const starts = lines.flatMap((l, i) => (i > jobsAt && /^ {2}[A-Za-z_][\w-]*:\s*$/.test(l) ? [i] : []));
  const inserts: { at: number; step: string[] }[] = [];
  starts.forEach((start, n) => {
    const end = starts[n + 1] ?? lines.length;
    const job = lines.slice(start, end);
    if (!job.some((l) => /^\s*(?:- )?uses: \.\/$/.test(l))) return;
    const checkout = job.findIndex((l) => /^\s*- uses: actions\/checkout@\S+\s*$/.test(l));
    if (checkout < 0)
      throw new Error(`${source}: job ${lines[start]!.trim()} runs the action without a checkout step: mftops init no longer matches the example workflows`);
    const indent = /^(\s*)-/.exec(job[checkout]!)![1]!;
    // The checkout step ends at the next line as far out as its `-` (the next step, a comment, a blank).
    let after = checkout + 1;
    while (after < job.length && job[after]!.startsWith(`${indent}  `)) after++;
    const step = [`${indent}- name: Install mftops (package-lock.json)`, `${indent}  run: npm ci --no-audit --no-fund`];
    if (installDir !== '.') step.push(`${indent}  working-directory: ${yamlPath(installDir)}`);
    inserts.push({ at: start + after, step });
  });
  for (const { at, step } of inserts.reverse()) lines.splice(at, 0, ...step);
  return lines.join('\n');
}

/** A repository path as a YAML scalar: plain when it can be, quoted otherwise. */
function yamlPath(path: string): string {
  return /^[\w./-]+$/.test(path) ? path : JSON.stringify(path);
}
function replaceAll(text: string, pattern: RegExp, replacement: string, source: string, what: string): string {
  if (!pattern.test(text)) throw new Error(`${source} has no line \`${what}\`: mftops init no longer matches the example workflows`);
  pattern.lastIndex = 0;
  return text.replace(pattern, replacement);
}
