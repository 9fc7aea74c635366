import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../config/load-config.js';
import { emulatorEnvironmentsYaml } from '../emulator/config-for.js';
import { loadSeedFile, startEmulator, type RunningEmulator } from '../emulator/index.js';

/**
 * `npm run demo`: the example estate's environments (examples/mftops.yaml: production and
 * staging), each on an emulator of its own on a free port, seeded with its seed; a temporary
 * configuration points at them and the real CLI runs against them, as a user would type it:
 * status, validate (manifests and the policies of examples/policies), a plan of each environment
 * (exit 2: there are changes; the policies that catch something on the example estate are
 * warnings), then diff-env between the two (exit 2: they differ). No setup, no prompt; exits 0 when every step did what
 * it should.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const examples = join(root, 'examples');
// The passwords of the example seeds' admin accounts (examples/seed/*.json), and the secret an
// example task sends. They are handed to the CLI through environment variables, as a real
// configuration would.
const DEMO_ENV = { MFT_AUTOMATION_PASSWORD: 'admin-Pa55!seed', MFT_TRANSFER_PASSWORD: 'xfer-admin-Pa55!seed', ACME_SFTP_PASSWORD: 'demo-acme-sftp-secret' };
// The example task that reads its password from a file (`${file:secrets/…}`): git holds no such file.
const DEMO_SECRET_FILE = { path: 'manifests/tasks/secrets/finance-share-audit.txt', value: 'demo-audit-share-secret' };
// The seed of each environment of examples/mftops.yaml; a release is promoted from staging to production.
const SEEDS: Readonly<Record<string, string>> = { staging: 'seed/staging-seed.json', production: 'seed/emulator-seed.json' };
const PROMOTION = ['staging', 'production'] as const;

async function runDemo(): Promise<number> {
  const environments = [...loadConfig(join(examples, 'mftops.yaml')).environments.values()];
  const emulators = new Map<string, RunningEmulator>();
  const work = mkdtempSync(join(tmpdir(), 'mftops-demo-'));
  const config = join(work, 'mftops.yaml');
  try {
    for (const env of environments) {
      const seed = SEEDS[env.name];
      if (seed === undefined) throw new Error(`no seed for the environment "${env.name}" of examples/mftops.yaml`);
      const emulator = await startEmulator({ seed: loadSeedFile(join(examples, seed)) });
      emulators.set(env.name, emulator);
      process.stdout.write(`Emulator of environment ${env.name} (examples/${seed}) listening on ${emulator.url}\n`);
    }
    // A copy of the examples with their secret file beside them, as a checkout where apply runs has it.
    const copy = join(work, 'examples');
    cpSync(examples, copy, { recursive: true });
    const secretFile = join(copy, DEMO_SECRET_FILE.path);
    mkdirSync(dirname(secretFile), { recursive: true });
    writeFileSync(secretFile, `${DEMO_SECRET_FILE.value}\n`, { mode: 0o600 });
    writeFileSync(
      config,
      emulatorEnvironmentsYaml(
        environments.map((env) => {
          const emulator = emulators.get(env.name)!;
          return {
            environment: env.name,
            automationUrl: emulator.automationUrl,
            transferUrl: emulator.transferUrl,
            manifests: env.manifests.map((p) => join(copy, relative(examples, p))),
            scope: env.scope,
          };
        }),
      ),
    );
    const names = environments.map((e) => e.name);
    const steps: Array<{ args: string[]; expect: number }> = [
      ...names.map((env) => ({ args: ['status', '--config', config, '--env', env], expect: 0 })),
      { args: ['validate', 'examples/manifests', 'examples/policies'], expect: 0 },
      ...names.map((env) => ({ args: ['plan', '--config', config, '--env', env, '--detailed-exitcode'], expect: 2 })),
      { args: ['diff-env', ...PROMOTION, '--config', config], expect: 2 },
    ];
    for (const step of steps) {
      process.stdout.write(`\n$ mftops ${step.args.map((a) => (a === config ? 'mftops.yaml' : a)).join(' ')}\n`);
      const code = await runCli(step.args, work);
      if (code !== step.expect) {
        process.stderr.write(`demo: mftops ${step.args[0]} exited ${code}, expected ${step.expect}\n`);
        return 1;
      }
    }
    const log = [...emulators.values()].flatMap((e) => e.requestLog());
    const writes = log.filter((r) => !r.isTokenCall && r.method !== 'GET');
    process.stdout.write(`\nDemo finished: ${log.length} requests to the emulators of ${names.join(' and ')}, ${writes.length} writes.\n`);
    return 0;
  } finally {
    for (const emulator of emulators.values()) await emulator.close();
    rmSync(work, { recursive: true, force: true });
  }
}

function runCli(args: readonly string[], cwd: string): Promise<number> {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, [join(root, 'bin/mftops.js'), ...args], {
      cwd,
      env: { ...process.env, ...DEMO_ENV },
      stdio: 'inherit',
    });
    child.on('close', (code) => resolveRun(code ?? 1));
  });
}

runDemo().then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    process.stderr.write(`demo: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
