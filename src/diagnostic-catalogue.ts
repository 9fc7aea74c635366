/**
 * The explanation catalogue: what each diagnostic code means, an example that produces it and
 * how to fix it, as `mftops explain CODE` prints them (src/app/explain.ts, src/render/explain.ts).
 * test/diagnostics.test.ts runs every example and checks that it produces its code, so an
 * explanation cannot drift from what the code reports. The codes themselves, and the diagnostic
 * model, are in src/diagnostics.ts.
 */

import type { DiagnosticCode } from './diagnostics.js';
import { DOCUMENT_KINDS } from './vocabulary.js';

/**
 * Where the example of a code goes, so that `mftops explain` can show it and a test can run it
 * (test/diagnostics.test.ts checks that every example produces its code):
 *
 * - `manifest`: a manifest file, as `mftops validate` checks it;
 * - `config`: `mftops.yaml` (a secret reference is resolved when a command needs it, as `status`);
 * - `plan`: a valid manifest that does not fit the servers, planned against them: `against` says
 *   what they hold that makes it fail (the names are those of the example estate,
 *   `mftops emulator --seed examples/seed/emulator-seed.json`), `services` the services the
 *   environment configures when not both, `transferHosts` its `automation.transferHosts`;
 * - `command`: a command line, run in a project whose manifests are fine; `setup` says what else
 *   must be there for it to fail.
 */
export type DiagnosticExample =
  | { readonly in: 'manifest'; readonly text: string }
  | { readonly in: 'config'; readonly text: string }
  | {
      readonly in: 'plan';
      readonly text: string;
      readonly against: string;
      readonly services?: readonly ('automation' | 'transfer')[];
      readonly transferHosts?: readonly string[];
    }
  | { readonly in: 'command'; readonly command: string; readonly setup?: string };

/** What a code means, shown by `mftops explain CODE`. */
export interface DiagnosticExplanation {
  /** What it means; the first sentence is the line `mftops explain` lists, the rest is detail. */
  readonly meaning: string;
  /** Something that produces it. */
  readonly example: DiagnosticExample;
  /** How to fix it. */
  readonly fix: string;
}

/** Lines of a YAML example, each followed by a line break. */
function yaml(...lines: string[]): string {
  return lines.map((l) => `${l}\n`).join('');
}

/** `a, b or c`. */
function orList(words: readonly string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]!}`;
}

const TASK_HEAD = ['apiVersion: mftops/v1', 'kind: Task', 'metadata: { name: Payroll to bank }', 'spec:'];
const ACL_HEAD = ['apiVersion: mftops/v1', 'kind: ResourceGroupAcl', 'metadata: { name: finance-operators }', 'spec:'];
const FOLDER_HEAD = ['apiVersion: mftops/v1', 'kind: FolderPermissions', 'metadata: { name: /Distribution/Acme/Outbound }', 'spec:'];
const CONFIG_HEAD = ['apiVersion: mftops/v1', 'kind: Config', 'environments:', '  prod:'];
const AUTOMATION = [
  '    automation:',
  '      url: https://automation.example.com',
  '      username: ${env:MFT_AUTOMATION_USER}',
  '      password: ${env:MFT_AUTOMATION_PASSWORD}',
];

/**
 * Every code's meaning, example and fix, beside the table of names above: a code added there
 * does not compile until it is explained here.
 */
export const DIAGNOSTIC_EXPLANATIONS: Readonly<Record<DiagnosticCode, DiagnosticExplanation>> = {
  MF001: {
    meaning:
      'The file is not YAML the parser accepts. Common causes: a tab used for indentation, a string opened with a quote and never closed, an alias `*name` with no anchor `&name` before it.',
    example: { in: 'manifest', text: yaml(...TASK_HEAD, '  Group: [Finance]', '\tActive: 1') },
    fix: 'Indent with spaces only, close every quote, and define an anchor before its aliases; the message points at the place.',
  },
  MF002: {
    meaning: 'A key is written twice in one mapping. YAML forbids it, and which of the two values counts would be a guess.',
    example: { in: 'manifest', text: yaml(...TASK_HEAD, '  Active: 1', '  Group: [Finance]', '  Active: 0') },
    fix: 'Keep one of the two; the message names the first definition.',
  },
  MF003: {
    meaning:
      'The file expands aliases too many times (more than 100) or nests too deeply to be read safely. This protects mftops from "billion laughs" documents.',
    example: {
      in: 'manifest',
      text: yaml(
        'a: &a [x, x, x, x, x, x, x, x, x, x]',
        'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
        'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
        'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
      ),
    },
    fix: 'Write the values out instead of multiplying them through aliases; manifests rarely need anchors.',
  },
  MF004: {
    meaning: 'The file is larger than the limit for a manifest file (10 MB) and was not read.',
    example: { in: 'command', command: 'mftops validate export.yaml', setup: 'export.yaml is a 12 MB file' },
    fix: 'Split the manifests into several files (a folder of files is read as one set), or take out what is not a manifest.',
  },
  MF005: {
    meaning: 'The file is not UTF-8 text: it holds NUL bytes or byte sequences that are not UTF-8 (UTF-16, Latin-1, a binary file).',
    example: { in: 'command', command: 'mftops validate notes.yaml', setup: 'notes.yaml was saved as UTF-16' },
    fix: 'Save the file as UTF-8; the message points at the first byte that is not.',
  },
  MF006: {
    meaning: 'There is nothing to read: the file is empty or holds only comments, or the folder has no `*.yaml`/`*.yml` files.',
    example: { in: 'manifest', text: yaml('# TODO: the Acme tasks') },
    fix: 'Add a manifest, delete the file, or check the path.',
  },
  MF007: {
    meaning: 'A path given on the command line or in `manifests:` does not exist or cannot be read.',
    example: { in: 'command', command: 'mftops validate manifests/tasks/payrol.yaml' },
    fix: 'Check the spelling and the permissions; paths in mftops.yaml are relative to its folder, paths on the command line to the working folder.',
  },
  MF008: {
    meaning:
      'The manifests of one run hold more bytes together than `limits.manifestMegabytes` of mftops.yaml allows (64 MB by default), which bounds the memory a run takes; none of them was checked.',
    example: { in: 'command', command: 'mftops validate', setup: 'mftops.yaml sets limits: { manifestMegabytes: 1 }; manifests/ holds 1.2 MB' },
    fix: "Raise `limits.manifestMegabytes` (the machine needs about ten times the manifests' size in memory), or take out what is not a manifest (exports, generated files).",
  },
  MF100: {
    meaning: 'A YAML document is not a mapping: it is a list or a plain value, where a manifest has `apiVersion`, `kind`, `metadata` and `spec`.',
    example: { in: 'manifest', text: yaml('- apiVersion: mftops/v1', '  kind: Task') },
    fix: 'Write each manifest as its own document (separated by `---`), not as items of a list.',
  },
  MF101: {
    meaning: '`apiVersion` is missing or is not `mftops/v1`, the only manifest version this mftops reads.',
    example: { in: 'manifest', text: yaml('apiVersion: mftops/v2', 'kind: Task', 'metadata: { name: Payroll to bank }', 'spec: { Active: 1 }') },
    fix: 'Write `apiVersion: mftops/v1`.',
  },
  MF102: {
    meaning: `\`kind\` is missing or unknown; a manifest is ${orList(DOCUMENT_KINDS.map((k) => `a \`${k}\``))}.`,
    example: { in: 'manifest', text: yaml('apiVersion: mftops/v1', 'kind: Tasks', 'metadata: { name: Payroll to bank }', 'spec: { Active: 1 }') },
    fix: `Write one of the ${DOCUMENT_KINDS.length} kinds (the message suggests the nearest); \`kind: Config\` belongs in mftops.yaml.`,
  },
  MF103: {
    meaning:
      '`metadata` or `metadata.name` is missing or malformed: a name is one line without leading or trailing spaces, and a folder name is an absolute path.',
    example: {
      in: 'manifest',
      text: yaml('apiVersion: mftops/v1', 'kind: FolderPermissions', 'metadata: { name: Distribution/Acme }', 'spec: { mode: additive, entries: [] }'),
    },
    fix: 'Give the document a `metadata.name`: the task name, a label for an ACL, the folder path starting with `/`.',
  },
  MF201: {
    meaning: 'A field the schema does not know, usually a typo; the message suggests the nearest known field.',
    example: { in: 'manifest', text: yaml(...TASK_HEAD, '  Active: 1', '  steps:', '    - Source: { Host: payroll-sftp, Path: /out, FileMsk: "*.csv" }') },
    fix: 'Correct the name (field names are case-sensitive), or remove the field. Editors that read the `# yaml-language-server: $schema=…` line complete field names.',
  },
  MF202: {
    meaning: 'A required field is absent, e.g. a schedule interval without `EndTime`, or an ACL without `permissions`.',
    example: { in: 'manifest', text: yaml(...ACL_HEAD, '  resourceGroup: Finance', '  userGroup: Finance Operators') },
    fix: 'Add the field the message names.',
  },
  MF203: {
    meaning: 'A value of the wrong type: text where a number is expected, a list where a mapping is, and so on.',
    example: { in: 'manifest', text: yaml(...TASK_HEAD, '  Active: 1', '  steps:', '    - Source: { Host: payroll-sftp, Path: /out, RetryCount: three }') },
    fix: 'Write the value in the type the message asks for (numbers unquoted, lists in `[ ]` or as `- ` items).',
  },
  MF204: {
    meaning: 'A value outside the list of allowed values, such as a day name or a permission that does not exist.',
    example: { in: 'manifest', text: yaml(...ACL_HEAD, '  resourceGroup: Finance', '  userGroup: Finance Operators', '  permissions: [TaskRun, TaskDelete]') },
    fix: 'Use one of the values the message lists (it suggests the nearest).',
  },
  MF205: {
    meaning: 'A number outside its bounds, such as a retry count over 32000 or a negative timeout.',
    example: { in: 'manifest', text: yaml(...TASK_HEAD, '  Active: 1', '  steps:', '    - Source: { Host: payroll-sftp, Path: /out, RetryCount: 40000 }') },
    fix: 'Use a number within the bounds the message gives.',
  },
  MF206: {
    meaning: 'A string that does not have the required form, e.g. a name with a leading space or a line break, or a string that is too long.',
    example: { in: 'manifest', text: yaml(...TASK_HEAD, '  Active: 1', '  Group: [" Finance"]') },
    fix: 'Write the value in the form the message describes.',
  },
  MF207: {
    meaning:
      'A list that is empty where it may not be, holds the same item twice, or has too many items; also a step written with more than one kind in one item.',
    example: { in: 'manifest', text: yaml(...ACL_HEAD, '  resourceGroup: Finance', '  userGroup: Finance Operators', '  permissions: [TaskRun, TaskRun]') },
    fix: 'Delete the repeat, add the missing item, or write each step as its own `- Source:`/`- Process:`/`- Destination:` item.',
  },
  MF208: {
    meaning: 'A field the server sets (`ID`, `NextEID`, `Renamed`, the `x…` fields) or the task name written in the spec; these have no place in a manifest.',
    example: { in: 'manifest', text: yaml(...TASK_HEAD, '  ID: "401001"', '  Active: 1') },
    fix: "Remove the field: ids are found by name at plan time, and a task's name is `metadata.name`.",
  },
  MF209: {
    meaning: 'A value that matches none of the forms allowed for it, or more than one, e.g. a folder entry that names both a `user` and a `group`.',
    example: {
      in: 'manifest',
      text: yaml(...FOLDER_HEAD, '  mode: additive', '  entries:', '    - { user: alice, group: Acme Partners, permissions: [listFiles] }'),
    },
    fix: 'Write the value in one of the forms the message describes (here: one entry per user or group).',
  },
  MF301: {
    meaning:
      'Two documents describe the same object: the same task name (case aside), the same resource group and user group pair, the same folder path, or the same policy name.',
    example: {
      in: 'manifest',
      text: yaml(...TASK_HEAD, '  Active: 1', '---', 'apiVersion: mftops/v1', 'kind: Task', 'metadata: { name: payroll to bank }', 'spec:', '  Active: 0'),
    },
    fix: 'Keep one document per object; the message names where the first one is.',
  },
  MF302: {
    meaning:
      "A `metadata.previousNames` entry that cannot be a rename: the object's own name, the name of another managed object, or a name two documents claim.",
    example: {
      in: 'manifest',
      text: yaml('apiVersion: mftops/v1', 'kind: Task', 'metadata: { name: Payroll to bank, previousNames: [Payroll to bank] }', 'spec:', '  Active: 1'),
    },
    fix: 'List only names the object had before a rename, each in one document.',
  },
  MF303: {
    meaning: 'An ACL grants `TaskAddEditDelete` without `TaskEditExisting`; the server refuses that combination.',
    example: {
      in: 'manifest',
      text: yaml(...ACL_HEAD, '  resourceGroup: Finance', '  userGroup: Finance Operators', '  permissions: [TaskRun, TaskAddEditDelete]'),
    },
    fix: 'Add `TaskEditExisting`, or drop `TaskAddEditDelete`.',
  },
  MF304: {
    meaning: 'A Source step sets `RenameTo` or `DelRename`, which act only when the original is renamed (`DeleteOrig: 2`).',
    example: {
      in: 'manifest',
      text: yaml(...TASK_HEAD, '  Active: 1', '  steps:', '    - Source: { Host: payroll-sftp, Path: /out, DeleteOrig: 1, RenameTo: "/out/sent/[OrigName]" }'),
    },
    fix: 'Set `DeleteOrig: 2`, or remove `RenameTo`/`DelRename`.',
  },
  MF305: {
    meaning: "A schedule's `StartTime` or `EndTime` is not a time `HH:mm` from 00:00 to 23:59.",
    example: {
      in: 'manifest',
      text: yaml(
        ...TASK_HEAD,
        '  Active: 1',
        '  Schedules:',
        '    Schedule:',
        '      - Days: { DayOfWeek: [Monday] }',
        '        Frequency: { Interval: [{ StartTime: "25:00", EndTime: "25:00" }] }',
      ),
    },
    fix: 'Write a time of day with two-digit hours, quoted: `"02:00"`.',
  },
  MF307: {
    meaning:
      'A password or secret value written as a literal. Manifests live in git: secrets are references to an environment variable or a file, resolved when apply sends them.',
    example: { in: 'manifest', text: yaml(...TASK_HEAD, '  Active: 1', '  steps:', '    - Destination: { Host: bank-as2, Path: /in, Password: hunter2 }') },
    fix: 'Write `${env:NAME}` or `${file:PATH}` and put the value in that variable or file where mftops runs.',
  },
  MF308: {
    meaning: 'A step names its host (or script) twice, by name and by id, or not at all.',
    example: { in: 'manifest', text: yaml(...TASK_HEAD, '  Active: 1', '  steps:', '    - Source: { Host: payroll-sftp, HostID: "201001", Path: /out }') },
    fix: 'Keep `Host` (or `Script`), the name: ids differ between servers.',
  },
  MF309: {
    meaning: "A user or group has two entries in one folder's permissions.",
    example: {
      in: 'manifest',
      text: yaml(
        ...FOLDER_HEAD,
        '  mode: exact',
        '  entries:',
        '    - { user: alice, permissions: [listFiles] }',
        '    - { user: alice, permissions: [readFiles] }',
      ),
    },
    fix: 'Merge the two entries into one.',
  },
  MF310: {
    meaning: 'A warning: a parameter named like a secret (password, token, API key…) holds a literal value, which would sit in git.',
    example: { in: 'manifest', text: yaml(...TASK_HEAD, '  Active: 1', '  Parameters: { ApiKey: 3f9a1c77 }') },
    fix: 'Use a `${env:NAME}` or `${file:PATH}` reference (with `secret: true`), or write `{ value: …, secret: false }` if it is not a secret.',
  },
  MF311: {
    meaning:
      'A `validations[].expression` of a `kind: Policy` document is not valid CEL (Common Expression Language), so the policy could never be checked; or its estimated cost is over 1,000,000 steps (comprehensions nested over long lists), so it could run for hours.',
    example: {
      in: 'manifest',
      text: yaml(
        'apiVersion: mftops/v1',
        'kind: Policy',
        'metadata: { name: tasks-described }',
        'spec:',
        '  severity: deny',
        '  validations:',
        '    - expression: "has(object.spec.Info) &&"',
        '      message: every task has a description',
      ),
    },
    fix: "Correct the expression (the message gives the parser's reason); quote it in YAML so that `:` and `#` stay part of it.",
  },
  MF312: {
    meaning:
      'A manifest breaks a policy that reads only `object` (no `oldObject`, `change` or `access`), which validate checks on every manifest the policy matches, with no server; a `warn` policy gives a warning, a `deny` policy an error. Plan checks every policy on every change.',
    example: {
      in: 'command',
      command: 'mftops validate',
      setup: 'a deny Policy on kind Task whose expression is `has(object.spec.Info)`; a task without Info',
    },
    fix: "Change the manifest so that the expression holds (the message is the policy's), or change the policy.",
  },
  MF320: {
    meaning:
      'A manifest uses `${var:NAME}` and the environment it is read for does not define `NAME` in `environments.<name>.vars` of mftops.yaml; or the manifests are checked without an environment (`mftops validate PATH…` without --env), where no variable has a value.',
    example: { in: 'manifest', text: yaml(...TASK_HEAD, '  Group: [Finance]', '  Active: ${var:active}') },
    fix: "Add the variable to the environment's `vars` (the message suggests a near name), or correct the name; check manifests with variables with --env NAME (without --env and with a configuration, validate checks every environment).",
  },
  MF321: {
    meaning:
      'A `${var:NAME}` where a variable cannot go: in a password or a secret parameter (variables are not secrets: plan files record them), or a list variable inside a longer text.',
    example: {
      in: 'manifest',
      text: yaml(...TASK_HEAD, '  Active: 1', '  steps:', '    - Destination: { Host: bank-as2, Path: /in, Password: "${var:bank_password}" }'),
    },
    fix: 'Write secrets as `${env:NAME}` or `${file:PATH}`; use a list variable as a whole value (`Group: ${var:groups}`).',
  },
  MF322: {
    meaning: '`metadata.environments` names an environment that mftops.yaml does not have, so the document would silently count nowhere under that name.',
    example: { in: 'command', command: 'mftops validate', setup: 'manifests/staging.yaml is limited to `environments: [stagin]`' },
    fix: 'Correct the name (the message suggests the nearest) or add the environment to mftops.yaml.',
  },
  MF323: {
    meaning:
      'A `kind: Patch` names a target (`spec.target`: kind and name) that no manifest defines in an environment the patch is for, so there is nothing to patch there.',
    example: {
      in: 'command',
      command: 'mftops validate',
      setup: 'manifests/patch.yaml patches `Task/Payroll to bnak`, which no manifest defines',
    },
    fix: "Correct the target's kind or name, or limit the patch (`metadata.environments`) to the environments that have its target.",
  },
  MF324: {
    meaning:
      'A folder path with a name the file transfer server cannot hold as one folder: `.` or `..` (apply would create a folder literally named `..`), a control character, or one of `\\ : * ? " < > |` (the characters Windows forbids in a name; the transfer API reference does not list its own).',
    example: {
      in: 'manifest',
      text: yaml(
        'apiVersion: mftops/v1',
        'kind: FolderPermissions',
        'metadata: { name: /Distribution/.. }',
        'spec:',
        '  createIfMissing: { inheritPermissions: None }',
        '  mode: additive',
        '  entries:',
        '    - { user: alice, permissions: [listFiles] }',
      ),
    },
    fix: "Write the folder's absolute path with its real names, one per level: `/Distribution/Acme`.",
  },
  MF325: {
    meaning:
      "A manifest's `${file:PATH}` points where manifest secrets may not be read: outside the repository (the folder of mftops.yaml, or of the manifests without one) and the `secrets.fileRoots` of mftops.yaml once symlinks are resolved, below /proc, /sys or /dev, or at something that is not a regular file (a FIFO, a device). Apply sends the value to a server, which keeps it in every export.",
    example: { in: 'command', command: 'mftops validate', setup: 'a task whose destination `Password` is `${file:/etc/hostname}`' },
    fix: 'Keep the secret file inside the repository (and out of git), or add its folder to `secrets: { fileRoots: [...] }` in mftops.yaml.',
  },
  MF326: {
    meaning:
      "A manifest's `${env:NAME}` names a variable that mftops.yaml reads a service's username or password from: apply would send the administrator's credential to the server as, say, a task password.",
    example: { in: 'command', command: 'mftops validate', setup: 'a task whose destination `Password` is `${env:MFT_AUTOMATION_PASSWORD}`' },
    fix: 'Give the task its own variable (`${env:BANK_SFTP_PASSWORD}`), even when its value is the same.',
  },
  MF401: {
    meaning: "A step's `Host` (or `HostID`) names a host the automation server does not have.",
    example: {
      in: 'plan',
      text: yaml(...TASK_HEAD, '  Group: [Finance]', '  steps:', '    - Source: { Host: payroll-sftpp, Path: /out }'),
      against: 'the automation server has no host payroll-sftpp (it has payroll-sftp)',
    },
    fix: 'Correct the name (the message suggests the nearest), or create the host on the server first.',
  },
  MF402: {
    meaning: "A Process step's `Script` (or `ScriptID`) names a script the automation server does not have, custom or standard.",
    example: {
      in: 'plan',
      text: yaml(...TASK_HEAD, '  Group: [Finance]', '  steps:', '    - Process: { Script: PGP Encrypt v2 }'),
      against: 'the automation server has no script named PGP Encrypt v2',
    },
    fix: 'Correct the name, or add the script on the server first.',
  },
  MF403: {
    meaning: "A schedule's `DateListRef` names a date list the automation server does not have.",
    example: {
      in: 'plan',
      text: yaml(
        ...TASK_HEAD,
        '  Group: [Finance]',
        '  Schedules:',
        '    Schedule:',
        '      - Days: { DayOfWeek: [Monday] }',
        '        DateListRef: [Bank Holidays 2027]',
        '        Frequency: { Interval: [{ StartTime: "02:00", EndTime: "02:00" }] }',
      ),
      against: 'the automation server has the date list Bank Holidays 2026 only',
    },
    fix: 'Correct the name, or create the date list on the server first.',
  },
  MF404: {
    meaning: "A task's `Group` or an ACL's `resourceGroup` names a resource group the automation server does not have.",
    example: {
      in: 'plan',
      text: yaml(...ACL_HEAD, '  resourceGroup: Finanse', '  userGroup: Finance Operators', '  permissions: [TaskRun]'),
      against: 'the automation server has the resource groups Finance, Partners and Operations',
    },
    fix: 'Correct the name, or create the resource group on the server first.',
  },
  MF405: {
    meaning: "An ACL's `userGroup` names a user group the automation server does not have (checked when the account may read user groups).",
    example: {
      in: 'plan',
      text: yaml(...ACL_HEAD, '  resourceGroup: Finance', '  userGroup: Finance Operator', '  permissions: [TaskRun]'),
      against: 'the automation server has the user group Finance Operators',
    },
    fix: 'Correct the name (user group names are case-sensitive), or create the group on the server first.',
  },
  MF406: {
    meaning: "A folder entry's `user` is not a user of the file transfer server.",
    example: {
      in: 'plan',
      text: yaml(...FOLDER_HEAD, '  mode: additive', '  entries:', '    - { user: alise, permissions: [listFiles] }'),
      against: 'the file transfer server has the user alice, not alise',
    },
    fix: 'Correct the username, or create the user on the server first.',
  },
  MF407: {
    meaning: "A folder entry's `group` is not a group of the file transfer server.",
    example: {
      in: 'plan',
      text: yaml(...FOLDER_HEAD, '  mode: additive', '  entries:', '    - { group: Acme Partner, permissions: [listFiles] }'),
      against: 'the file transfer server has the group Acme Partners',
    },
    fix: 'Correct the name, or create the group on the server first.',
  },
  MF408: {
    meaning:
      'A folder that does not exist and has no `createIfMissing`, or whose parent does not exist either; or a managed folder below a folder the plan renames.',
    example: {
      in: 'plan',
      text: yaml(
        'apiVersion: mftops/v1',
        'kind: FolderPermissions',
        'metadata: { name: /Distribution/Acme/Archive }',
        'spec:',
        '  mode: additive',
        '  entries: []',
      ),
      against: 'the file transfer server has no folder /Distribution/Acme/Archive',
    },
    fix: 'Add `createIfMissing: { inheritPermissions: None }` (or `CopyOnly`, `Always`) to have apply create it (its parent must exist or be created too), or correct the path.',
  },
  MF409: {
    meaning: 'A `--target` address names nothing in the plan: no manifest and no unmanaged object in scope has it.',
    example: { in: 'command', command: 'mftops plan --target "Task/Payroll to bnak"' },
    fix: 'Write the address as plans show it, `Kind/name` (`Task/Payroll to bank`, `FolderPermissions/Distribution/Acme/Outbound`).',
  },
  MF410: {
    meaning: "A step's `Type` is not the type of its host (plan fills the type in from the host when the step leaves it out).",
    example: {
      in: 'plan',
      text: yaml(...TASK_HEAD, '  Group: [Finance]', '  steps:', '    - Source: { Host: payroll-sftp, Type: FTP, Path: /out }'),
      against: 'the host payroll-sftp is an SFTP (SSHFTP) host',
    },
    fix: 'Remove `Type`, or name a host of that type.',
  },
  MF411: {
    meaning:
      'The manifests hold objects of a service the environment does not configure: tasks or ACLs without `automation:`, folder permissions without `transfer:`.',
    example: {
      in: 'plan',
      text: yaml(...TASK_HEAD, '  Group: [Finance]'),
      against: 'the environment configures only the file transfer server',
      services: ['transfer'],
    },
    fix: 'Add the service to the environment in mftops.yaml, or leave those manifests out of its `manifests:`.',
  },
  MF412: {
    meaning:
      'A warning: a folder listed in `previousNames` still exists beside the folder of the new name. The plan manages the new one and leaves the old one alone.',
    example: {
      in: 'plan',
      text: yaml(
        'apiVersion: mftops/v1',
        'kind: FolderPermissions',
        'metadata: { name: /Distribution/Acme/Outbound, previousNames: [/Distribution/Acme/Inbound] }',
        'spec:',
        '  mode: additive',
        '  entries: []',
      ),
      against: 'both /Distribution/Acme/Outbound and /Distribution/Acme/Inbound exist',
    },
    fix: 'Remove the old path from `previousNames` once the rename is done, or delete the old folder if it is left over.',
  },
  MF413: {
    meaning:
      'A warning: a `drift.ignore` entry of mftops.yaml whose `address` matches no object of the drift run, so it acknowledges nothing (a misspelt name, or an object since renamed or deleted).',
    example: { in: 'command', command: 'mftops drift', setup: 'the environment in mftops.yaml has drift: { ignore: [{ address: "Task/Payrol to bank" }] }' },
    fix: 'Correct the address (`Kind/name` as drift reports show it; `*` matches any run of characters), or remove the entry.',
  },
  MF414: {
    meaning:
      'A warning: a `${env:NAME}` variable that is not set (or empty), or a `${file:PATH}` that is missing, unreadable or empty, which a change of the plan would send. The plan is made and saved, but apply refuses it, naming every such reference, before writing anything.',
    example: {
      in: 'plan',
      text: yaml(
        'apiVersion: mftops/v1',
        'kind: Task',
        'metadata: { name: Payroll API check }',
        'spec:',
        '  Group: [Finance]',
        '  Parameters:',
        '    ApiKey: { value: "${env:PAYROLL_API_KEY}", secret: true }',
      ),
      against: 'PAYROLL_API_KEY is not set where mftops plan runs',
    },
    fix: "Set the variable, or write the secret to the file (a `${file:}` path is relative to the manifest's folder), where mftops apply runs; in GitHub Actions, pass it to the step as an environment variable from a secret.",
  },
  MF415: {
    meaning:
      "A warning: a task step runs on an automation host that points at this environment's transfer service (named in `automation.transferHosts`, or whose `Host` is the transfer URL's hostname), and its `Path` names a folder the transfer server does not have, which the plan does not create either. The task would fail when it runs.",
    example: {
      in: 'plan',
      text: yaml(...TASK_HEAD, '  Group: [Partners]', '  steps:', '    - Destination: { Host: xfer, Path: /Distribution/Acme/Archive }'),
      against: 'mftops.yaml lists the host xfer under automation.transferHosts, and the file transfer server has no folder /Distribution/Acme/Archive',
      transferHosts: ['xfer'],
    },
    fix: 'Correct the `Path`, or add a FolderPermissions manifest for the folder with `createIfMissing` so that apply creates it.',
  },
  MF416: {
    meaning:
      "A warning: the account a task step uses on the transfer server (the step's `Username`, else the host's `DefUsername`) lacks a permission the step needs on its folder, counting the entries of its groups, or is not a user of the transfer server. A Source step needs `readFiles` and `listFiles` (and `deleteFiles` with `DeleteOrig: 1`), a Destination step `writeFiles`. The rights are those the folder will have once the plan is applied.",
    example: {
      in: 'plan',
      text: yaml(...TASK_HEAD, '  Group: [Partners]', '  steps:', '    - Destination: { Host: xfer, Path: /Finance/Payroll, Username: bob }'),
      against: 'mftops.yaml lists the host xfer under automation.transferHosts, and bob has no entry on /Finance/Payroll, nor has any group of his',
      transferHosts: ['xfer'],
    },
    fix: "Grant the permissions the message names to the account, or to a group it is in, in the folder's FolderPermissions manifest; or use an account that has them.",
  },
  MF417: {
    meaning:
      'A warning: a Group marked `manage: observe` (owned elsewhere, e.g. synchronised from a directory) differs from what the transfer server has: members added or missing, another description, or no such group. mftops reports it and never writes the group; its change is a no-op, and its members as the server has them count in access reviews.',
    example: {
      in: 'plan',
      text: yaml(
        'apiVersion: mftops/v1',
        'kind: Group',
        'metadata: { name: Finance Team }',
        'spec:',
        '  mode: exact',
        '  members: [alice]',
        '  manage: observe',
      ),
      against: 'the file transfer server has the group Finance Team with the members alice and carol',
      services: ['transfer'],
    },
    fix: 'Change the group where it is owned, or write in the manifest what the server has (`mftops import --kind Group` writes it).',
  },
  MF420: {
    meaning:
      'A warning: an entry of `privilegedAccounts.allowUnmanaged` in mftops.yaml names no transfer user and no automation administrator of the servers `mftops drift` read, so it allows nothing (a misspelt name, or an account since deleted).',
    example: { in: 'command', command: 'mftops drift', setup: 'the environment in mftops.yaml has privilegedAccounts: { allowUnmanaged: [svc-gone] }' },
    fix: 'Correct the name (as the server spells it, in any case), or remove the entry.',
  },
  MF501: {
    meaning: 'The configuration file does not exist or cannot be read.',
    example: { in: 'command', command: 'mftops status --config mftops.yml' },
    fix: 'Pass the right file with `--config FILE`, or run mftops from the folder that holds mftops.yaml (`mftops init` writes one).',
  },
  MF502: {
    meaning: 'mftops.yaml is not YAML the parser accepts, or writes a key twice.',
    example: { in: 'config', text: yaml(...CONFIG_HEAD, ...AUTOMATION, '    manifests: [manifests]', '    manifests: [more]') },
    fix: 'Fix the YAML at the place the message gives.',
  },
  MF503: {
    meaning: 'A key the configuration does not know, usually a typo.',
    example: { in: 'config', text: yaml(...CONFIG_HEAD, ...AUTOMATION, '    manifest: [manifests]') },
    fix: 'Correct the key (see `schemas/config.schema.json`), or remove it.',
  },
  MF504: {
    meaning:
      'A required key is absent: no environment, an environment with neither `automation` nor `transfer`, a service without `url`, `username` or `password`.',
    example: {
      in: 'config',
      text: yaml(...CONFIG_HEAD, '    automation:', '      url: https://automation.example.com', '      password: ${env:MFT_AUTOMATION_PASSWORD}'),
    },
    fix: 'Add the key the message names.',
  },
  MF505: {
    meaning: 'A value of the wrong type, outside its list or bounds, of the wrong form, or a date that is not in the calendar.',
    example: { in: 'config', text: yaml(...CONFIG_HEAD, ...AUTOMATION, '    prune: [Tasks]') },
    fix: 'Write the value as the message asks (here: `prune` lists kinds: Task, ResourceGroupAcl, FolderPermissions).',
  },
  MF506: {
    meaning: 'A password written as a literal in mftops.yaml, which lives in git.',
    example: {
      in: 'config',
      text: yaml(...CONFIG_HEAD, '    automation:', '      url: https://automation.example.com', '      username: admin', '      password: Secret123'),
    },
    fix: 'Write `${env:NAME}` or `${file:PATH}` and set that variable or file where mftops runs.',
  },
  MF507: {
    meaning: 'A service URL that is not a URL, holds credentials, or is plain `http://` to a host other than this machine.',
    example: {
      in: 'config',
      text: yaml(
        ...CONFIG_HEAD,
        '    automation:',
        '      url: http://automation.example.com',
        '      username: ${env:MFT_AUTOMATION_USER}',
        '      password: ${env:MFT_AUTOMATION_PASSWORD}',
      ),
    },
    fix: 'Use `https://` (plain http only for 127.0.0.1, localhost or [::1]) and keep credentials in `username`/`password`.',
  },
  MF508: {
    meaning: 'A `${env:NAME}` whose variable is not set, or a `${file:PATH}` that cannot be read, when a command needs the value.',
    example: {
      in: 'config',
      text: yaml(
        ...CONFIG_HEAD,
        '    automation:',
        '      url: https://automation.example.com',
        '      username: admin',
        '      password: ${env:MFT_AUTOMATION_PASSWORD}',
      ),
    },
    fix: "Set the variable (or create the file) in the environment mftops runs in; in the GitHub Action, pass it through the step's `env:` from a secret.",
  },
};
