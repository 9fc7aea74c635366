import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emulatorConfigYaml } from '../emulator/config-for.js';
import { loadSeedFile, startEmulator } from '../emulator/index.js';

/**
 * `npm run demo`: start the emulator on a free port with the example estate, point a temporary
 * configuration at it and run the real CLI against it, as a user would type it: status, validate,
 * then a plan of examples/manifests with the policies of examples/policies (exit 2: there are
 * changes; the policies that catch something on the example estate are warnings). No setup, no
 * prompt; exits 0 when every step did what it should.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
// The passwords of the example seed's admin accounts (examples/seed/emulator-seed.json), and the
// secret an example task sends. They are handed to the CLI through environment variables, as a
// real configuration would.
const DEMO_ENV = { MFT_AUTOMATION_PASSWORD: 'admin-Pa55!seed', MFT_TRANSFER_PASSWORD: 'xfer-admin-Pa55!seed', ACME_SFTP_PASSWORD: 'demo-acme-sftp-secret' };
// The example task that reads its password from a file (`${file:secrets/…}`): git holds no such file.
const DEMO_SECRET_FILE = { path: 'tasks/secrets/finance-share-audit.txt', value: 'demo-audit-share-secret' };

async function runDemo(): Promise<number> {
  const emulator = await startEmulator({ seed: loadSeedFile(join(root, 'examples/seed/emulator-seed.json')) });
  const work = mkdtempSync(join(tmpdir(), 'mftops-demo-'));
  const config = join(work, 'mftops.yaml');
  process.stdout.write(`Emulator with the example estate listening on ${emulator.url}\n`);
  try {
    // A copy of the examples with their secret file beside them, as a checkout where apply runs has it.
    const manifests = join(work, 'manifests');
    cpSync(join(root, 'examples/manifests'), manifests, { recursive: true });
    const policies = join(work, 'policies');
    cpSync(join(root, 'examples/policies'), policies, { recursive: true });
    const secretFile = join(manifests, DEMO_SECRET_FILE.path);
    mkdirSync(dirname(secretFile), { recursive: true });
    writeFileSync(secretFile, `${DEMO_SECRET_FILE.value}\n`, { mode: 0o600 });
    writeFileSync(config, emulatorConfigYaml({ ...emulator, environment: 'demo', manifests: [manifests, policies] }));
    const steps: Array<{ args: string[]; expect: number }> = [
      { args: ['status', '--config', config], expect: 0 },
      { args: ['validate', 'examples/manifests', 'examples/policies'], expect: 0 },
      { args: ['plan', '--config', config, '--detailed-exitcode'], expect: 2 },
    ];
    for (const step of steps) {
      process.stdout.write(`\n$ mftops ${step.args.map((a) => (a === config ? 'mftops.yaml' : a)).join(' ')}\n`);
      const code = await runCli(step.args);
      if (code !== step.expect) {
        process.stderr.write(`demo: mftops ${step.args[0]} exited ${code}, expected ${step.expect}\n`);
        return 1;
      }
    }
    const writes = emulator.requestLog().filter((r) => !r.isTokenCall && r.method !== 'GET');
    process.stdout.write(`\nDemo finished: ${emulator.requestLog().length} requests to the emulator, ${writes.length} writes.\n`);
    return 0;
  } finally {
    await emulator.close();
    rmSync(work, { recursive: true, force: true });
  }
}

function runCli(args: readonly string[]): Promise<number> {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, [join(root, 'bin/mftops.js'), ...args], {
      cwd: root,
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
