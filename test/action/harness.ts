import { execFile, spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { SEED_LOGINS } from '../integration/helpers.js';
import { testdir } from '../helpers/testdir.js';
import { CLI_HANG_GUARD_MS } from '../helpers/run-cli.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The committed bundle `action.yml` runs. */
export const BUNDLE = join(REPO_ROOT, 'dist-action', 'index.mjs');
const EXAMPLES = join(REPO_ROOT, 'examples', 'manifests');
const PR_EVENT = fileURLToPath(new URL('./fixtures/pull-request-synchronize.json', import.meta.url));

/** Secret values of the example manifests (`${env:ACME_SFTP_PASSWORD}`, `${file:secrets/finance-share-audit.txt}`). */
export const MANIFEST_SECRETS = { acmeSftp: 'acme-sftp-env-secret-8812', auditShare: 'audit-share-file-secret-4471' } as const;

/** Credentials as a workflow passes them: `env:` from secrets, named as the configuration's and manifests' references. */
export const CREDENTIALS = {
  MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password,
  MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password,
  ACME_SFTP_PASSWORD: MANIFEST_SECRETS.acmeSftp,
};

/** Every secret a run knows: none may appear in a log, summary, output, comment, issue or plan file. */
export const ALL_SECRETS = ['SEEDSECRET', SEED_LOGINS.automationAdmin.password, SEED_LOGINS.transferAdmin.password, ...Object.values(MANIFEST_SECRETS)];

/** A checkout of a configuration repository: mftops.yaml for the emulator, the example manifests. */
export function checkout(emulator: RunningEmulator, environment = 'lab'): string {
  const dir = testdir({
    'mft/mftops.yaml': emulatorConfigYaml({ ...emulator, environment, manifests: ['manifests'] }),
    'mft/manifests/tasks/secrets/finance-share-audit.txt': MANIFEST_SECRETS.auditShare,
  });
  cpSync(EXAMPLES, join(dir, 'mft', 'manifests'), { recursive: true });
  return dir;
}

/** The `pull_request` event payload of the fixture, for pull request `number` with head `sha`. */
export function pullRequestEvent(number: number, sha: string): string {
  const event = JSON.parse(readFileSync(PR_EVENT, 'utf8')) as { number: number; pull_request: { number: number; head: { sha: string } } };
  event.number = number;
  event.pull_request.number = number;
  event.pull_request.head.sha = sha;
  return JSON.stringify(event, null, 2);
}

export interface ActionRun {
  readonly code: number | null;
  /** The step's log: workflow commands and text. */
  readonly stdout: string;
  readonly stderr: string;
  /** `GITHUB_OUTPUT`, parsed. */
  readonly outputs: Readonly<Record<string, string>>;
  /** `GITHUB_STEP_SUMMARY`. */
  readonly summary: string;
}

export interface RunOptions {
  /** Action inputs by their action.yml names (`plan-file`), passed as a runner does. */
  readonly inputs: Readonly<Record<string, string>>;
  /** The workspace (checkout). */
  readonly workspace: string;
  readonly eventName: string;
  /** The event payload (JSON text). */
  readonly event?: string;
  readonly github?: { readonly apiUrl: string };
  readonly env?: Readonly<Record<string, string>>;
  /** The node binary; default this process's (Node 20 here). */
  readonly node?: string;
  /** The bundle to run; default the committed one. */
  readonly bundle?: string;
}

/**
 * Run the Action's bundle the way a runner does: a child process in the workspace, inputs as
 * `INPUT_<NAME>` (upper-cased, hyphens kept), the runner's files and `GITHUB_*` variables, and
 * the credentials in the environment. Nothing else of this process's environment leaks in.
 */
export function runActionProcess(o: RunOptions): Promise<ActionRun> {
  const files = testdir({ 'event.json': o.event ?? '{}', output: '', summary: '' });
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: o.workspace,
    GITHUB_EVENT_NAME: o.eventName,
    GITHUB_EVENT_PATH: join(files, 'event.json'),
    GITHUB_OUTPUT: join(files, 'output'),
    GITHUB_STEP_SUMMARY: join(files, 'summary'),
    GITHUB_REPOSITORY: 'acme-corp/mft-config',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_API_URL: o.github?.apiUrl ?? 'http://127.0.0.1:9',
    GITHUB_RUN_ID: '8123456789',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_SHA: 'c0ffee0000000000000000000000000000000001',
    RUNNER_TEMP: files,
    ...Object.fromEntries(Object.entries(o.inputs).map(([name, value]) => [`INPUT_${name.replace(/ /g, '_').toUpperCase()}`, value])),
    ...o.env,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(o.node ?? process.execPath, [o.bundle ?? BUNDLE], { cwd: o.workspace, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), CLI_HANG_GUARD_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({
        code,
        stdout,
        stderr,
        outputs: parseOutputFile(readFileSync(join(files, 'output'), 'utf8')),
        summary: readFileSync(join(files, 'summary'), 'utf8'),
      });
    });
  });
}

/** `GITHUB_OUTPUT` as the runner reads it: `name<<DELIM` … `DELIM` blocks, or `name=value` lines; the last value wins. */
export function parseOutputFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line === '') continue;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const [, name, delimiter] = heredoc;
      const value: string[] = [];
      for (i++; i < lines.length && lines[i] !== delimiter; i++) value.push(lines[i] ?? '');
      if (i >= lines.length) throw new Error(`output ${name} has no closing delimiter`);
      // Set twice: the runner keeps the last value.
      out[name!] = value.join('\n');
      continue;
    }
    const eq = line.indexOf('=');
    if (eq <= 0) throw new Error(`not an output line: ${line}`);
    out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

let node24: Promise<string> | undefined;

/** MFTOPS_NODE24, when set: the Node 24 binary `.ci/run` passes in (scripts/node24.mjs fetches it). */
const GIVEN_NODE24 = process.env['MFTOPS_NODE24'] || undefined;

/**
 * The Node 24 binary in MFTOPS_NODE24 (the runtime `runs.using: node24` gets). Rejects when it is
 * not Node 24, so that a wrong binary fails the Node 24 runs instead of passing unseen. Resolved
 * once per test file.
 */
export function findNode24(): Promise<string> {
  node24 ??= (async () => {
    if (GIVEN_NODE24 === undefined) throw new Error('no Node 24 for the Action tests: MFTOPS_NODE24 is not set (see README: Development)');
    const version = await run(GIVEN_NODE24, ['-p', 'process.version'], `MFTOPS_NODE24 (${GIVEN_NODE24})`);
    if (!version.startsWith('v24.')) throw new Error(`MFTOPS_NODE24 (${GIVEN_NODE24}) is Node ${version}, not Node 24`);
    return GIVEN_NODE24;
  })();
  return node24;
}

/** A runtime a process test runs the bundle on: its name (in the test's title) and how to find the binary. */
export type Runtime = [name: string, findNode: () => Promise<string>];

/**
 * The Node 24 runtime of the process tests: MFTOPS_NODE24 when set (`.ci/run` sets it, so CI runs
 * the bundle on Node 24 and fails without one); otherwise this Node stands in, and the test's
 * title says so. `npm test` itself never downloads a runtime: `npm ci` installs everything.
 */
export const NODE24_RUNTIME: Runtime =
  GIVEN_NODE24 !== undefined
    ? ['Node 24', findNode24]
    : [`Node 24 not given (MFTOPS_NODE24 unset): this Node ${process.version} stands in`, () => Promise.resolve(process.execPath)];

/** The trimmed stdout of a command, or an error that says what failed and why. */
function run(command: string, args: readonly string[], what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: 300_000 }, (err, stdout, stderr) => {
      if (err === null) resolve(stdout.trim());
      else
        reject(
          new Error(
            `no Node 24 for the Action tests: ${what} failed: ${stderr.trim() || err.message} (set MFTOPS_NODE24 to a Node 24 binary, see README: Development)`,
          ),
        );
    });
  });
}

/** Write a file into the workspace (relative path). */
export function put(workspace: string, path: string, text: string): string {
  const full = join(workspace, path);
  writeFileSync(full, text);
  return full;
}

/**
 * A bare checkout of the action (what action.yml needs) whose bundle is built from the sources as
 * they are now (the committed one is rebuilt only after a merge); the bundle's path.
 */
export async function freshBundle(): Promise<string> {
  const action = testdir({});
  for (const part of ['action.yml', 'package.json', 'schemas']) cpSync(join(REPO_ROOT, part), join(action, part), { recursive: true });
  mkdirSync(join(action, 'dist-action'));
  const bundle = join(action, 'dist-action', 'index.mjs');
  await new Promise<void>((resolve, reject) =>
    execFile(process.execPath, [join(REPO_ROOT, 'scripts', 'build-action.mjs'), '--outfile', bundle], { cwd: REPO_ROOT }, (err) =>
      err ? reject(err) : resolve(),
    ),
  );
  return bundle;
}
