import { readFileSync } from 'node:fs';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { LedgerEntry } from '../../src/apply/ledger.js';
import { describeSecretProblems, resolveChangeSecrets } from '../../src/apply/secrets.js';
import type { ResolvedSecrets } from '../../src/apply/secrets.js';
import { assemblePlan } from '../../src/plan/assemble-plan.js';
import { formatAddress } from '../../src/plan/model.js';
import type { Change, JsonObject, JsonValue, Plan, PlanHeader } from '../../src/plan/model.js';
import { SEED_LOGINS } from '../integration/helpers.js';
import { testdir } from '../helpers/testdir.js';
import { readTasks } from '../helpers/emulator-test-api.js';
import { join } from 'node:path';
import { planPaths, type Harness } from '../plan/helpers.js';

/** Secret values the apply tests put in the environment and in a secret file: none may leak. */
export const SECRETS = {
  payrollKey: 'payroll-key-from-env-7731',
  token: 'token-from-env-5512',
  filePassword: 'acme-file-secret-9913',
} as const;

/** Every secret of the seed and of these tests. */
export const ALL_SECRETS = ['SEEDSECRET', SEED_LOGINS.automationAdmin.password, SEED_LOGINS.transferAdmin.password, 'Pa55!seed', ...Object.values(SECRETS)];

/** The process environment of an apply run: service passwords and the manifests' `${env:}` secrets. */
export const APPLY_ENV: Record<string, string> = {
  MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password,
  MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password,
  PAYROLL_API_KEY: SECRETS.payrollKey,
  APPLY_TEST_TOKEN: SECRETS.token,
};

/**
 * Manifests that, against the example seed with the configuration of `applyWorkdir`, plan every
 * action of every kind:
 * - Task: create `Apply test upload` (env and file secrets), update `Payroll to bank` (its secret
 *   parameter is sent again), replace `Acme inbound` (Group changes), delete `Nightly cleanup`
 *   (pruned in scope Operations); `Legacy EDI router` (advanced) is a no-op;
 * - ResourceGroupAcl: create `finance-auditors`, update `finance-operators`, delete
 *   `Operations/Auditors` (pruned);
 * - FolderPermissions: create `/Finance/Reports` (createIfMissing, CopyOnly), update
 *   `/Finance/Payroll` and `/Distribution/Acme/Inbound` (exact: alice's entry removed), delete the
 *   entries of `/Distribution/Initech/Inbound` and `/Outbound` (pruned in scope).
 */
export const APPLY_MANIFESTS: Record<string, string> = {
  'manifests/tasks.yaml': `apiVersion: mftops/v1
kind: Task
metadata: { name: Payroll to bank }
spec:
  Group: [Finance]
  Info: { Description: Nightly payroll file to the bank (managed by apply tests) }
  Parameters:
    ApiKey: { value: "\${env:PAYROLL_API_KEY}", secret: true }
---
apiVersion: mftops/v1
kind: Task
metadata: { name: Acme inbound }
spec:
  Active: 1
  Group: [Finance]
  Info: { Description: "Pick up Acme's files, decrypt, publish to the Acme inbound folder" }
---
apiVersion: mftops/v1
kind: Task
metadata: { name: Apply test upload }
spec:
  Active: true
  Group: [Operations]
  Info: { Description: Created by the apply tests }
  Parameters:
    Token: { value: "\${env:APPLY_TEST_TOKEN}", secret: true }
  steps:
    - Source: { Host: local-fs, Path: /apply-test, FileMask: "*", DeleteOrig: 0 }
    - Destination:
        Host: initech-s3
        Path: /incoming
        OverwriteOrig: 1
        UseDefUser: 0
        Username: apply-test
        Password: \${file:secrets/acme-password.txt}
---
apiVersion: mftops/v1
kind: Task
metadata: { name: Legacy EDI router }
spec:
  TT: COS
  Group: [Operations]
  Info: { Description: Advanced task kept from the old EDI setup }
`,
  'manifests/secrets/acme-password.txt': `${SECRETS.filePassword}\n`,
  'manifests/acls.yaml': `apiVersion: mftops/v1
kind: ResourceGroupAcl
metadata: { name: finance-operators }
spec: { resourceGroup: Finance, userGroup: Finance Operators, permissions: [TaskRun] }
---
apiVersion: mftops/v1
kind: ResourceGroupAcl
metadata: { name: finance-auditors }
spec: { resourceGroup: Finance, userGroup: Auditors, permissions: [TaskRun] }
`,
  'manifests/folders.yaml': `apiVersion: mftops/v1
kind: FolderPermissions
metadata: { name: /Finance/Payroll }
spec:
  mode: exact
  entries:
    - group: Finance Team
      permissions: [listFiles, readFiles, writeFiles]
    - user: carol
      permissions: [listFiles, readFiles, writeFiles, deleteFiles, admin]
      sharePermissions: [readFiles, listFiles]
---
apiVersion: mftops/v1
kind: FolderPermissions
metadata: { name: /Finance/Reports }
spec:
  createIfMissing: { inheritPermissions: CopyOnly }
  mode: additive
  entries:
    - group: Finance Team
      permissions: [listFiles, readFiles]
---
apiVersion: mftops/v1
kind: FolderPermissions
metadata: { name: /Distribution/Acme/Inbound }
spec:
  mode: exact
  entries:
    - group: Acme Partners
      permissions: [listFiles, writeFiles]
`,
};

/**
 * A FolderPermissions manifest for `/Distribution/Acme/Incoming` that was `previous` (default: the
 * seed's `/Distribution/Acme/Inbound`, under the same parent: a rename). Exact mode with the Acme
 * Partners entry only, so alice's entry of the seed folder goes; `createIfMissing`, as a user who
 * wants the folder either way writes it (a rename must still win over a create).
 */
export function renameManifests(previous = '/Distribution/Acme/Inbound'): Record<string, string> {
  return {
    'manifests/folders.yaml': `apiVersion: mftops/v1
kind: FolderPermissions
metadata:
  name: /Distribution/Acme/Incoming
  previousNames: [${previous}]
spec:
  createIfMissing: { inheritPermissions: None }
  mode: exact
  entries:
    - group: Acme Partners
      permissions: [listFiles, writeFiles]
`,
  };
}

/**
 * A Policy (issue 17) on the task `APPLY_MANIFESTS` create, `Task/Apply test upload`, whose
 * description mentions the apply tests: it is violated by that create, and by nothing else.
 */
export function testTaskPolicy(severity: 'deny' | 'warn'): string {
  return [
    'apiVersion: mftops/v1',
    'kind: Policy',
    'metadata: { name: no-test-tasks }',
    'spec:',
    `  severity: ${severity}`,
    '  match: { kinds: [Task], actions: [create] }',
    '  validations:',
    `    - expression: "!object.spec.Info.Description.contains('apply tests')"`,
    '      message: tasks made by tests stay out of production',
    '',
  ].join('\n');
}

/** The planned action of each address of `APPLY_MANIFESTS` (no-ops left out). */
export const EXPECTED_ACTIONS: Record<string, string> = {
  'Task/Apply test upload': 'create',
  'Task/Payroll to bank': 'update',
  'Task/Acme inbound': 'replace',
  'Task/Nightly cleanup': 'delete',
  'ResourceGroupAcl/finance-auditors': 'create',
  'ResourceGroupAcl/finance-operators': 'update',
  'ResourceGroupAcl/Operations/Auditors': 'delete',
  'FolderPermissions/Finance/Reports': 'create',
  'FolderPermissions/Finance/Payroll': 'update',
  'FolderPermissions/Distribution/Acme/Inbound': 'update',
  'FolderPermissions/Distribution/Initech/Inbound': 'delete',
  'FolderPermissions/Distribution/Initech/Outbound': 'delete',
};

export interface WorkdirOptions {
  readonly environment?: string;
  /** Other files (path → content), e.g. more manifests. */
  readonly files?: Record<string, string>;
  /** Replaces APPLY_MANIFESTS. */
  readonly manifests?: Record<string, string>;
  readonly automationUrl?: string;
  /** Default: all three kinds. */
  readonly prune?: readonly string[];
}

/** A working folder: mftops.yaml for the emulator (prune of all kinds in a narrow scope) and the manifests. */
export function applyWorkdir(emulator: RunningEmulator, options: WorkdirOptions = {}): string {
  return testdir({
    'mftops.yaml': [
      emulatorConfigYaml({
        environment: options.environment ?? 'lab',
        automationUrl: options.automationUrl ?? emulator.automationUrl,
        transferUrl: emulator.transferUrl,
        manifests: ['manifests'],
      }).trimEnd(),
      '    scope: { taskGroups: [Operations], folders: [/Distribution/Initech] }',
      `    prune: [${(options.prune ?? ['Task', 'ResourceGroupAcl', 'FolderPermissions']).join(', ')}]`,
      'snapshots: { dir: .mftops/snapshots, keep: 10 }',
      '',
    ].join('\n'),
    ...(options.manifests ?? APPLY_MANIFESTS),
    ...options.files,
  });
}

/** Requests that may have changed something: not GET, not a token call (the name its many importers use). */
export { listWrites as writesOf } from '../helpers/emulator-test-api.js';

export type LedgerLine = LedgerEntry & { readonly time: string };

export function readLedger(path: string): LedgerLine[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as LedgerLine);
}

/** Tasks in the emulator with this name (case-insensitive). */
export function tasksNamed(emulator: RunningEmulator, name: string): Record<string, unknown>[] {
  return readTasks(emulator, (t) => String(t['Name']).toLowerCase() === name.toLowerCase());
}

// ------------------------------------------------------------------------------ hand-made changes

/** The changes' secrets resolved from `env`, as apply resolves them before the first write (for executor tests); one missing fails the test. */
export function resolvedSecrets(changes: readonly Change[], env: NodeJS.ProcessEnv = {}, cwd = process.cwd()): ResolvedSecrets {
  const resolution = resolveChangeSecrets(changes, { env, cwd, confinement: { fileRoots: [cwd], credentialVariables: [] } });
  if (!resolution.ok) throw new Error(describeSecretProblems(resolution.problems).join('\n'));
  return resolution.resolved;
}

/** A change as the planner makes it, for executor tests. */
export function change(fields: Pick<Change, 'kind' | 'name' | 'action'> & Partial<Change>): Change {
  const service = fields.kind === 'FolderPermissions' ? 'transfer' : 'automation';
  return { address: formatAddress(fields.kind, fields.name), service, fields: [], ...fields };
}

/** A valid task body of the example seed (hosts local-fs → acme-sftp). */
export function taskBody(name: string, extra: Record<string, JsonValue> = {}): JsonObject {
  return {
    Name: name,
    Group: ['Operations'],
    Info: { Description: `${name} (apply tests)` },
    steps: [{ Source: { HostID: '201007', Path: '/apply', FileMask: '*' } }, { Destination: { HostID: '201004', Path: '/in' } }],
    ...extra,
  };
}

export function taskCreate(name: string, extra: Record<string, JsonValue> = {}, source?: Change['source']): Change {
  return change({ kind: 'Task', name, action: 'create', payload: { kind: 'Task', body: taskBody(name, extra) }, ...(source ? { source } : {}) });
}

/** Full permission flags of a folder entry, as the planner's payloads hold them. */
export function entryFlags(granted: readonly string[]): Record<string, boolean | Record<string, boolean>> {
  const all = ['readFiles', 'writeFiles', 'deleteFiles', 'listFiles', 'notify', 'addDeleteSubfolders', 'share', 'admin', 'listUsers'];
  const share = ['readFiles', 'writeFiles', 'deleteFiles', 'listFiles', 'notify', 'listUsers'];
  return { ...Object.fromEntries(all.map((p) => [p, granted.includes(p)])), sharePermissions: Object.fromEntries(share.map((p) => [p, false])) };
}

/** A plan of these changes, for guard and orchestration tests. */
export function planOf(changes: readonly Change[], overrides: Partial<PlanHeader> & { errored?: boolean } = {}): Plan {
  const { errored = false, ...header } = overrides;
  return assemblePlan(
    {
      toolVersion: '0.0.0-test',
      createdAt: '2026-11-22T00:00:00.000Z',
      environment: 'lab',
      servers: {
        automation: { url: 'https://automation.example.com', username: 'admin' },
        transfer: { url: 'https://transfer.example.com', username: 'admin' },
      },
      manifestDigest: 'sha256:0',
      ...header,
    },
    changes,
    errored,
  );
}

/**
 * APPLY_MANIFESTS in a new folder and their plan against the harness's servers, in the scope the
 * in-process apply tests use (the Operations tasks, /Distribution/Initech, every kind pruned).
 */
export async function planApplyManifests(h: Harness): Promise<{ readonly dir: string; readonly plan: Plan }> {
  const dir = testdir(APPLY_MANIFESTS);
  const result = await planPaths(h, [join(dir, 'manifests')], {
    cwd: dir,
    env: { scope: { taskGroups: ['Operations'], folders: ['/Distribution/Initech'] }, prune: ['Task', 'ResourceGroupAcl', 'FolderPermissions'] },
  });
  return { dir, plan: result.plan! };
}
