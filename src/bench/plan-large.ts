import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emulatorConfigYaml } from '../emulator/config-for.js';
import { loadSeedFile, startEmulator } from '../emulator/index.js';
import { mapWithConcurrency } from '../live/map-with-concurrency.js';
import { loadManifests } from '../manifest/load.js';
import { buildPlan } from '../plan/build-plan.js';
import type { JsonValue } from '../plan/model.js';
import { Secret, parseSecretRef } from '../secret.js';
import { createAutomationClient, toReadonlyAutomationClient } from '../services/index.js';
import { generateTaskManifest } from './generate-manifests.js';

/**
 * Measures `mftops plan` on a large estate: N generated tasks (default 10,000) that exist on the
 * emulator, with 1% of the manifests changed, at a given latency per request (default 20 ms).
 * Usage: node dist/bench/plan-large.js [N] [latencyMs]. Prints one JSON line of results.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const count = Number(process.argv[2] ?? 10_000);
const latencyMs = Number(process.argv[3] ?? 20);
const PASSWORD = 'admin-Pa55!seed';

async function measure(): Promise<void> {
  const emulator = await startEmulator({ seed: loadSeedFile(join(root, 'examples/seed/emulator-seed.json')) });
  const work = mkdtempSync(join(tmpdir(), 'mftops-bench-'));
  try {
    const write = (i: number, text: string): void => {
      const file = join(work, 'manifests', `batch-${String(Math.floor(i / 50)).padStart(3, '0')}`, `task-${i}.yaml`);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
    };
    for (let i = 0; i < count; i++) write(i, generateTaskManifest(i));
    writeFileSync(
      join(work, 'mftops.yaml'),
      emulatorConfigYaml({ environment: 'bench', automationUrl: emulator.automationUrl, automationPassword: '${env:BENCH_PW}', manifests: ['manifests'] }),
    );

    // Populate: plan against the seed (all creates), then create every task through the API.
    const client = createAutomationClient({ url: emulator.automationUrl, username: 'admin', password: new Secret(PASSWORD) });
    const manifests = await loadManifests([join(work, 'manifests')], { cwd: work });
    const env = { name: 'bench', manifests: [], scope: { taskGroups: [], folders: [] }, prune: [] };
    const first = await buildPlan({ manifests, clients: { automation: toReadonlyAutomationClient(client) }, environment: env, servers: {}, cwd: work });
    const creates = (first.plan?.changes ?? []).filter((c) => c.action === 'create' && c.payload?.kind === 'Task');
    await mapWithConcurrency(creates, 16, async (c) => {
      if (c.payload?.kind === 'Task') await client.createTask(standIns(c.payload.body) as Record<string, unknown>);
    });
    await client.close();

    // Change 1% of the manifests, then measure the CLI at the given latency.
    const changed = Math.max(1, Math.floor(count / 100));
    for (let k = 0; k < changed; k++) {
      const i = k * 100;
      write(i, generateTaskManifest(i).replace(/Description: (.*)/, 'Description: $1 (changed)'));
    }
    emulator.configure({ latencyMs });
    emulator.resetRequestLog();
    const started = process.hrtime.bigint();
    const cpuBefore = process.cpuUsage();
    const result = await runPlan(work);
    const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
    const log = emulator.requestLog();
    const summary = /Plan: (.*)\./.exec(result.stdout)?.[1];
    process.stdout.write(
      `${JSON.stringify({
        scenario: 'plan',
        tasks: count,
        changedManifests: changed,
        latencyMs,
        exitCode: result.code,
        wallMs: Math.round(wallMs),
        childCpuMs: result.cpuMs,
        peakRssKb: result.maxRssKb,
        requests: log.length,
        tokenRequests: log.filter((r) => r.isTokenCall).length,
        writes: log.filter((r) => !r.isTokenCall && r.method !== 'GET').length,
        summary,
        populatedTasks: creates.length,
        harnessCpuMs: Math.round((process.cpuUsage(cpuBefore).user + process.cpuUsage(cpuBefore).system) / 1000),
      })}\n`,
    );
  } finally {
    await emulator.close();
    rmSync(work, { recursive: true, force: true });
  }
}

/** Secret references replaced by stand-in values, as apply would resolve them. */
function standIns(x: JsonValue): JsonValue {
  if (typeof x === 'string') return parseSecretRef(x) ? 'bench-secret-value' : x;
  if (Array.isArray(x)) return x.map(standIns);
  if (x !== null && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, standIns(v)]));
  return x;
}

/** The real CLI in its own process, with its CPU time and peak memory from /usr/bin/time-like rusage. */
function runPlan(cwd: string): Promise<{ code: number | null; stdout: string; cpuMs: number; maxRssKb: number }> {
  return new Promise((resolveRun) => {
    const script = `const {spawnSync}=require('node:child_process');const r=spawnSync(process.execPath,${JSON.stringify([join(root, 'bin/mftops.js'), 'plan', '--detailed-exitcode', '-q'])},{cwd:${JSON.stringify(cwd)},env:{...process.env,BENCH_PW:${JSON.stringify(PASSWORD)}},maxBuffer:1<<30,encoding:'utf8'});const u=process.resourceUsage();process.stdout.write(JSON.stringify({code:r.status,stdout:r.stdout.slice(-2000)}));`;
    // Measure the child through a wrapper so its rusage is not mixed with the emulator's.
    const child = spawn('/usr/bin/time', ['-f', '%U %S %M', process.execPath, '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', () => {
      const parsed = JSON.parse(out) as { code: number | null; stdout: string };
      const [user, sys, rss] = err.trim().split('\n').at(-1)!.split(' ').map(Number);
      resolveRun({ ...parsed, cpuMs: Math.round(((user ?? 0) + (sys ?? 0)) * 1000), maxRssKb: rss ?? 0 });
    });
  });
}

measure().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
