import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emulatorConfigYaml } from '../emulator/config-for.js';
import { loadSeedFile, startEmulator } from '../emulator/index.js';
import { generateTaskManifest } from './generate-manifests.js';

/**
 * Measures `mftops apply` of N generated task creates (default 1,000) against the emulator at a
 * given latency per request (default 20 ms), once per parallelism (default 1, 4 and 16), each
 * against a fresh emulator. Usage: node dist/bench/apply-large.js [N] [latencyMs] [p1,p2,...].
 * Prints one JSON line per parallelism.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const count = Number(process.argv[2] ?? 1000);
const latencyMs = Number(process.argv[3] ?? 20);
const levels = (process.argv[4] ?? '1,4,16').split(',').map(Number);
const PASSWORD = 'admin-Pa55!seed';
const SECRET_ENV = Object.fromEntries([
  ...[0, 1, 2, 3, 4].map((i) => [`GEN_TOKEN_${i}`, `bench-token-${i}`]),
  ...[0, 1, 2].map((i) => [`GEN_PASSWORD_${i}`, `bench-password-${i}`]),
]);

async function measure(parallelism: number): Promise<void> {
  const emulator = await startEmulator({ seed: loadSeedFile(join(root, 'examples/seed/emulator-seed.json')) });
  const work = mkdtempSync(join(tmpdir(), 'mftops-bench-apply-'));
  try {
    for (let i = 0; i < count; i++) {
      const file = join(work, 'manifests', `batch-${String(Math.floor(i / 50)).padStart(3, '0')}`, `task-${i}.yaml`);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, generateTaskManifest(i));
    }
    writeFileSync(
      join(work, 'mftops.yaml'),
      `${emulatorConfigYaml({ environment: 'bench', automationUrl: emulator.automationUrl, automationPassword: '${env:BENCH_PW}', manifests: ['manifests'] })}snapshots: { dir: snapshots, keep: 1 }\n`,
    );
    emulator.configure({ latencyMs });
    emulator.resetRequestLog();
    const started = process.hrtime.bigint();
    const result = await runApply(work, parallelism);
    const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
    const log = emulator.requestLog();
    const report = parseReport(result.stdout);
    const names = new Set(emulator.state.automation.tasks.map((t) => String(t['Name'])));
    process.stdout.write(
      `${JSON.stringify({
        scenario: 'apply',
        changes: count,
        latencyMs,
        parallelism,
        exitCode: result.code,
        wallMs: Math.round(wallMs),
        applyPhaseMs: report?.stats.wallMs,
        outcome: report?.outcome,
        counts: report?.counts,
        requests: log.length,
        writes: log.filter((r) => !r.isTokenCall && r.method !== 'GET').length,
        reads: log.filter((r) => !r.isTokenCall && r.method === 'GET').length,
        tokenRequests: log.filter((r) => r.isTokenCall).length,
        tasksOnServer: names.size,
        ...(result.code !== 0 ? { stderr: result.stderr.slice(-2000) } : {}),
      })}\n`,
    );
  } finally {
    await emulator.close();
    rmSync(work, { recursive: true, force: true });
  }
}

interface Report {
  readonly outcome: string;
  readonly counts: Record<string, number>;
  readonly stats: { readonly wallMs: number };
}

function parseReport(stdout: string): Report | undefined {
  try {
    return JSON.parse(stdout) as Report;
  } catch {
    return undefined;
  }
}

/** The real CLI in its own process. */
function runApply(cwd: string, parallelism: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [join(root, 'bin/mftops.js'), 'apply', '--auto-approve', '--parallelism', String(parallelism), '--format', 'json', '-q'], {
      cwd,
      env: { ...process.env, BENCH_PW: PASSWORD, ...SECRET_ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}

async function main(): Promise<void> {
  for (const p of levels) await measure(p);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
