import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { emulatorConfigYaml } from '../src/emulator/config-for.js';
import { exportConfig } from '../src/emulator/config-xml.js';
import { countRequests, loadSeedFile, startEmulator } from '../src/emulator/index.js';
import type { RunningEmulator } from '../src/emulator/index.js';
import type { JsonObject } from '../src/emulator/json.js';
import { mapWithConcurrency } from '../src/live/map-with-concurrency.js';
import { loadManifests } from '../src/manifest/load.js';
import { buildPlan } from '../src/app/build-plan.js';
import type { JsonValue } from '../src/plan/model.js';
import { Secret, parseSecretRef } from '../src/secret.js';
import { createAutomationClient, createTransferClient, toReadonlyAutomationClient } from '../src/services/index.js';
import { extendSeed, writeEstateManifests } from './estate.js';
import type { EstateSize } from './estate.js';
import { generateTaskManifest } from './generate-manifests.js';
import { ROOT as root } from './root.js';

/**
 * `npm run bench` (issue 8): a large estate in the emulator, then the real CLI in child processes,
 * each measured for wall time, CPU time (user + system), peak RSS and the HTTP requests the
 * emulator saw (and the most it answered at once). Writes bench/results.json and prints a table
 * with the targets. `acl-reads` is not a CLI run: it times plan's 2,000 folder ACL reads alone, the
 * floor the per-request cost of this machine puts under plan.
 *
 * Environment knobs (for quick runs): BENCH_TASKS, BENCH_FOLDERS, BENCH_ACLS, BENCH_LATENCY_MS,
 * BENCH_PLAN_PARALLELISM, BENCH_APPLY_CHANGES, BENCH_APPLY_LEVELS (e.g. "1,4,16"),
 * BENCH_SNAPSHOT_MB, BENCH_ONLY (comma list of scenario names), BENCH_OUT (results file).
 * BENCH_HOLD=1 sets up the estate, prints its folder and waits (for profiling the CLI by hand).
 */
const bin = join(root, 'bin/mftops.js');
const envNum = (name: string, dflt: number): number => (process.env[name] ? Number(process.env[name]) : dflt);
const SIZE: EstateSize = { tasks: envNum('BENCH_TASKS', 10_000), folders: envNum('BENCH_FOLDERS', 2_000), acls: envNum('BENCH_ACLS', 1_000) };
const LATENCY = envNum('BENCH_LATENCY_MS', 20);
const PLAN_P = envNum('BENCH_PLAN_PARALLELISM', 32);
const APPLY_CHANGES = envNum('BENCH_APPLY_CHANGES', 1_000);
const APPLY_LEVELS = (process.env.BENCH_APPLY_LEVELS ?? '1,4,16').split(',').map(Number);
const SNAPSHOT_MB = envNum('BENCH_SNAPSHOT_MB', 100);
const ONLY = process.env.BENCH_ONLY?.split(',');
const OUT = process.env.BENCH_OUT ?? join(root, 'bench/results.json');
const AUTOMATION_PW = 'admin-Pa55!seed';
const TRANSFER_PW = 'xfer-admin-Pa55!seed';
const SECRET_ENV = Object.fromEntries([
  ...[0, 1, 2, 3, 4].map((i) => [`GEN_TOKEN_${i}`, `bench-token-${i}`]),
  ...[0, 1, 2].map((i) => [`GEN_PASSWORD_${i}`, `bench-password-${i}`]),
]);
const CHILD_ENV = { ...process.env, BENCH_AUTOMATION_PW: AUTOMATION_PW, BENCH_TRANSFER_PW: TRANSFER_PW, ...SECRET_ENV, NO_COLOR: '1' };

/** One measured run of the CLI. */
interface Run {
  readonly exitCode: number | null;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly peakRssMb: number;
  readonly stdout: string;
  readonly stderr: string;
}

interface Scenario {
  readonly name: string;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly peakRssMb: number;
  readonly requests?: number;
  readonly exitCode?: number | null;
  readonly [extra: string]: unknown;
}

const results: Scenario[] = [];
const want = (name: string): boolean => !ONLY || ONLY.includes(name);

/** The CLI in a child process under GNU time: its own rusage, not the emulator's. */
function runCli(args: readonly string[], cwd: string): Promise<Run> {
  const timeFile = join(tmpdir(), `mftops-bench-time-${process.pid}-${Math.random().toString(36).slice(2)}`);
  return new Promise((resolveRun, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn('/usr/bin/time', ['-f', '%U %S %M', '-o', timeFile, process.execPath, bin, ...args], { cwd, env: CHILD_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      const [user, sys, rss] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
      rmSync(timeFile, { force: true });
      resolveRun({
        exitCode: code,
        wallMs: Math.round(wallMs),
        cpuMs: Math.round(((user ?? 0) + (sys ?? 0)) * 1000),
        peakRssMb: Math.round((rss ?? 0) / 1024),
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
  });
}

/** Requests the emulator saw during `fn`. */
async function counted<T>(
  emulator: RunningEmulator,
  fn: () => Promise<T>,
): Promise<{ value: T; requests: number; tokenRequests: number; writes: number; emulatorCpuMs: number; peakConcurrency: number }> {
  emulator.resetRequestLog();
  // The emulator runs in this process: its CPU time competes with the CLI's for the 2 cores.
  const cpu = process.cpuUsage();
  const value = await fn();
  const used = process.cpuUsage(cpu);
  const counts = countRequests(emulator.requestLog());
  return {
    value,
    requests: counts.total,
    tokenRequests: counts.tokenCalls,
    writes: counts.writes,
    emulatorCpuMs: Math.round((used.user + used.system) / 1000),
    peakConcurrency: emulator.peakConcurrency(),
  };
}

/** Secret references replaced by stand-in values, as apply would resolve them. */
function standIns(x: JsonValue): JsonValue {
  if (typeof x === 'string') return parseSecretRef(x) ? 'bench-secret-value' : x;
  if (Array.isArray(x)) return x.map(standIns);
  if (x !== null && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, standIns(v)]));
  return x;
}

/** Create the generated tasks through the API (at 0 ms latency), from a plan against the seed. */
async function populateTasks(emulator: RunningEmulator, work: string): Promise<number> {
  const dir = join(work, 'populate');
  writeEstateManifests(dir, { tasks: SIZE.tasks, folders: 0, acls: 0 }, false);
  const client = createAutomationClient({ url: emulator.automationUrl, username: 'admin', password: new Secret(AUTOMATION_PW) });
  try {
    const manifests = await loadManifests([dir], { cwd: work });
    const env = { name: 'bench', manifests: [], scope: { taskGroups: [], folders: [] }, prune: [] };
    const first = await buildPlan({ manifests, clients: { automation: toReadonlyAutomationClient(client) }, environment: env, servers: {}, cwd: work });
    const creates = (first.plan?.changes ?? []).filter((c) => c.action === 'create' && c.payload?.kind === 'Task');
    await mapWithConcurrency(creates, 16, async (c) => {
      if (c.payload?.kind === 'Task') await client.createTask(standIns(c.payload.body) as Record<string, unknown>);
    });
    return creates.length;
  } finally {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function configFile(emulator: RunningEmulator, opts: { transfer: boolean; manifests: string[]; extra?: string }): string {
  return `${emulatorConfigYaml({
    environment: 'bench',
    automationUrl: emulator.automationUrl,
    automationPassword: '${env:BENCH_AUTOMATION_PW}',
    ...(opts.transfer ? { transferUrl: emulator.transferUrl, transferPassword: '${env:BENCH_TRANSFER_PW}' } : {}),
    manifests: opts.manifests,
  })}${opts.extra ?? ''}`;
}

/** The fewest requests a plan of the estate needs, by the API references (see report). */
function planFewestRequests(seedFolders: number): { total: number; perObject: number; parts: Record<string, number> } {
  const parts = {
    tokens: 2,
    automationLists: 8, // info, tasks, hosts, custom + standard scripts, date lists, resource groups, ACLs
    transferGroups: 1,
    folderPages: Math.ceil((SIZE.folders + seedFolders) / 1000),
    folderAcls: SIZE.folders, // no bulk ACL read exists: one GET /folders/{id}/acls per folder
    tokenRevokes: 2,
  };
  return { total: Object.values(parts).reduce((a, b) => a + b, 0), perObject: SIZE.tasks + SIZE.folders + SIZE.acls, parts };
}

async function benchEstate(work: string): Promise<void> {
  const base = loadSeedFile(join(root, 'examples/seed/emulator-seed.json'));
  const seed = extendSeed(base, SIZE);
  const emulator = await startEmulator({ seed });
  try {
    const t0 = Date.now();
    const populated = await populateTasks(emulator, work);
    process.stderr.write(`bench: populated ${populated} tasks, ${SIZE.folders} folders, ${SIZE.acls} ACLs in ${Date.now() - t0} ms\n`);
    const manifests = join(work, 'manifests');
    writeEstateManifests(manifests, SIZE, true);
    const scope = `    scope: { taskGroups: [Finance, Partners, Operations], folders: [/Bench] }\n`;
    writeFileSync(join(work, 'mftops.yaml'), configFile(emulator, { transfer: true, manifests: ['manifests'] }) + scope);
    const count = SIZE.tasks + SIZE.folders + SIZE.acls;
    if (process.env.BENCH_HOLD) {
      emulator.configure({ latencyMs: LATENCY });
      process.stderr.write(`bench: estate ready in ${work} (latency ${LATENCY} ms); Ctrl-C ends\n`);
      await new Promise<void>((done) => process.once('SIGINT', () => done()));
      return;
    }

    if (want('validate')) {
      const r = await runCli(['validate', 'manifests', '-q'], work);
      push({ name: 'validate', manifests: count, ...metrics(r), exitCode: r.exitCode });
    }
    emulator.configure({ latencyMs: LATENCY });
    const seedFolders = emulator.state.transfer.folders.length - SIZE.folders;
    const fewest = planFewestRequests(seedFolders);
    for (const command of ['plan', 'drift'] as const) {
      if (!want(command)) continue;
      const c = await counted(emulator, () => runCli([command, '--parallelism', String(PLAN_P), ...(command === 'plan' ? ['--detailed-exitcode'] : []), '-q'], work));
      const r = c.value;
      const summary = /(Plan|Drift): (.*)/.exec(r.stdout)?.[2];
      push({
        name: command,
        objects: count,
        latencyMs: LATENCY,
        parallelism: PLAN_P,
        ...metrics(r),
        requests: c.requests,
        tokenRequests: c.tokenRequests,
        writes: c.writes,
        emulatorCpuMs: c.emulatorCpuMs,
        peakConcurrency: c.peakConcurrency,
        exitCode: r.exitCode,
        summary,
        fewestRequests: fewest.total,
        fewestRequestsParts: fewest.parts,
        lowerBoundMs: Math.round((fewest.total * LATENCY) / PLAN_P),
        perObjectReader: { parallelism: 10, requests: fewest.perObject, wallMs: Math.round((fewest.perObject * LATENCY) / 10) },
        ...(r.exitCode !== 0 && r.exitCode !== 2 ? { stderr: r.stderr.slice(-2000) } : {}),
      });
    }

    if (want('acl-reads')) await benchAclReads(emulator);
    if (want('snapshot')) await benchSnapshot(emulator, work);
  } finally {
    await emulator.close();
  }
}

/**
 * The floor under plan's transfer reads on this machine: the 2,000 folder ACL reads alone, through
 * the client in this process, at the plan's parallelism. The gap between this and its lower bound
 * is per-request CPU (undici, JSON, the emulator), not mftops' plan logic.
 */
async function benchAclReads(emulator: RunningEmulator): Promise<void> {
  const client = createTransferClient({ url: emulator.transferUrl, username: 'admin', password: new Secret(TRANSFER_PW), connections: PLAN_P });
  try {
    const folders = (await client.listFolders()).filter((f) => f.path.startsWith('/Bench/'));
    const c = await counted(emulator, async () => {
      const cpu = process.cpuUsage();
      const started = performance.now();
      await mapWithConcurrency(folders, PLAN_P, (f) => client.listFolderAcls(f.id));
      const used = process.cpuUsage(cpu);
      return { wallMs: Math.round(performance.now() - started), cpuMs: Math.round((used.user + used.system) / 1000) };
    });
    push({
      name: 'acl-reads',
      reads: folders.length,
      parallelism: PLAN_P,
      latencyMs: LATENCY,
      wallMs: c.value.wallMs,
      // Client and emulator share this process: cpuMs is both, emulatorCpuMs the same figure.
      cpuMs: c.value.cpuMs,
      peakRssMb: Math.round(process.memoryUsage().rss / 1024 / 1024),
      requests: c.requests,
      peakConcurrency: c.peakConcurrency,
      lowerBoundMs: Math.round((folders.length * LATENCY) / PLAN_P),
    });
  } finally {
    await client.close();
  }
}

/** A 100 MB export: the populated tasks cloned in the emulator's state until the XML is that big. */
async function benchSnapshot(source: RunningEmulator, work: string): Promise<void> {
  const emulator = await startEmulator({ seed: loadSeedFile(join(root, 'examples/seed/emulator-seed.json')) });
  try {
    const a = emulator.state.automation;
    const templates = source.state.automation.tasks.slice(0, 500);
    const perTask = exportConfig({ ...a, tasks: templates }, '2025.1.0').length / Math.max(1, templates.length);
    const target = SNAPSHOT_MB * 1024 * 1024;
    const n = Math.ceil((target - exportConfig(a, '2025.1.0').length) / perTask);
    for (let i = 0; i < n; i++) {
      const t = structuredClone(templates[i % templates.length]!) as JsonObject;
      t['ID'] = String(a.nextId++);
      t['Name'] = `Snapshot task ${String(i).padStart(6, '0')}`;
      a.tasks.push(t);
    }
    const bytes = Buffer.byteLength(exportConfig(a, '2025.1.0'));
    const dir = join(work, 'snap');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'mftops.yaml'), configFile(emulator, { transfer: false, manifests: [], extra: 'snapshots: { dir: snapshots, keep: 2 }\n' }));
    emulator.configure({ latencyMs: LATENCY });
    const save = await counted(emulator, () => runCli(['snapshot', 'save', '-q'], dir));
    const verify = await runCli(['snapshot', 'verify', 'latest', '-q'], dir);
    push({
      name: 'snapshot',
      exportBytes: bytes,
      exportMb: Math.round((bytes / 1024 / 1024) * 10) / 10,
      wallMs: save.value.wallMs + verify.wallMs,
      cpuMs: save.value.cpuMs + verify.cpuMs,
      peakRssMb: Math.max(save.value.peakRssMb, verify.peakRssMb),
      requests: save.requests,
      emulatorCpuMs: save.emulatorCpuMs,
      save: metrics(save.value),
      verify: metrics(verify),
      exitCode: save.value.exitCode || verify.exitCode,
      ...(save.value.exitCode || verify.exitCode ? { stderr: (save.value.stderr + verify.stderr).slice(-2000) } : {}),
    });
  } finally {
    await emulator.close();
  }
}

/** `apply` of N task creates against a fresh emulator, once per parallelism. */
async function benchApply(work: string, parallelism: number): Promise<void> {
  const emulator = await startEmulator({ seed: loadSeedFile(join(root, 'examples/seed/emulator-seed.json')) });
  const dir = join(work, `apply-${parallelism}`);
  try {
    for (let i = 0; i < APPLY_CHANGES; i++) {
      const file = join(dir, 'manifests', `batch-${String(Math.floor(i / 50)).padStart(3, '0')}`, `task-${i}.yaml`);
      mkdirSync(join(file, '..'), { recursive: true });
      writeFileSync(file, generateTaskManifest(i));
    }
    writeFileSync(join(dir, 'mftops.yaml'), configFile(emulator, { transfer: false, manifests: ['manifests'], extra: 'snapshots: { dir: snapshots, keep: 1 }\n' }));
    emulator.configure({ latencyMs: LATENCY });
    const c = await counted(emulator, () => runCli(['apply', '--auto-approve', '--parallelism', String(parallelism), '--format', 'json', '-q'], dir));
    const r = c.value;
    let report: { outcome?: string; counts?: unknown; stats?: { wallMs?: number } } = {};
    try {
      report = JSON.parse(r.stdout) as typeof report;
    } catch {
      // left empty: exitCode and stderr say what went wrong
    }
    // Fewest: token, the 7 automation lists a task plan reads (one round), the export for the
    // snapshot, one write per change, the revoke. Lower bound: the rounds that must follow each
    // other (token, reads, export, revoke) plus the writes spread over `parallelism`.
    const fewest = 1 + 7 + 1 + APPLY_CHANGES + 1;
    push({
      name: `apply-p${parallelism}`,
      changes: APPLY_CHANGES,
      parallelism,
      latencyMs: LATENCY,
      ...metrics(r),
      requests: c.requests,
      writes: c.writes,
      emulatorCpuMs: c.emulatorCpuMs,
      peakConcurrency: c.peakConcurrency,
      exitCode: r.exitCode,
      outcome: report.outcome,
      counts: report.counts,
      applyPhaseMs: report.stats?.wallMs,
      fewestRequests: fewest,
      lowerBoundMs: Math.round((4 + Math.ceil(APPLY_CHANGES / parallelism)) * LATENCY),
      tasksOnServer: emulator.state.automation.tasks.length,
      ...(r.exitCode !== 0 ? { stderr: r.stderr.slice(-2000) } : {}),
    });
  } finally {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Median of 5 cold starts of the CLI (a new process each time). */
async function benchColdStart(name: string, args: readonly string[]): Promise<void> {
  const runs: Run[] = [];
  for (let i = 0; i < 5; i++) runs.push(await runCli(args, root));
  const med = (f: (r: Run) => number): number => [...runs.map(f)].sort((x, y) => x - y)[2]!;
  push({ name, wallMs: med((r) => r.wallMs), cpuMs: med((r) => r.cpuMs), peakRssMb: med((r) => r.peakRssMb), runsWallMs: runs.map((r) => r.wallMs), exitCode: runs[0]!.exitCode });
}

function metrics(r: Run): { wallMs: number; cpuMs: number; peakRssMb: number } {
  return { wallMs: r.wallMs, cpuMs: r.cpuMs, peakRssMb: r.peakRssMb };
}

function push(s: Scenario): void {
  results.push(s);
  process.stderr.write(`bench: ${JSON.stringify(s)}\n`);
}

/** Target checks of issue 8; `undefined` when the scenario was not run. */
function targets(): { target: string; measured: string; met: boolean }[] {
  const get = (n: string): Scenario | undefined => results.find((r) => r.name === n);
  const out: { target: string; measured: string; met: boolean }[] = [];
  const plan = get('plan');
  if (plan) {
    const lb = plan['lowerBoundMs'] as number;
    const reader = plan['perObjectReader'] as { requests: number; wallMs: number };
    out.push({ target: 'plan wall ≤ 1.3× lower bound', measured: `${plan.wallMs} ms vs ${lb} ms (${(plan.wallMs / lb).toFixed(2)}×)`, met: plan.wallMs <= 1.3 * lb });
    out.push({ target: 'plan ≥ 6× fewer requests than per-object reader', measured: `${plan.requests} vs ${reader.requests} (${(reader.requests / (plan.requests ?? 1)).toFixed(1)}×)`, met: reader.requests / (plan.requests ?? 1) >= 6 });
    out.push({ target: 'plan ≥ 10× less wall than per-object reader', measured: `${plan.wallMs} ms vs ${reader.wallMs} ms (${(reader.wallMs / plan.wallMs).toFixed(1)}×)`, met: reader.wallMs / plan.wallMs >= 10 });
    out.push({ target: 'plan CPU ≤ 2 s', measured: `${plan.cpuMs} ms`, met: plan.cpuMs <= 2000 });
    out.push({ target: 'plan peak RSS ≤ 512 MB', measured: `${plan.peakRssMb} MB`, met: plan.peakRssMb <= 512 });
  }
  const validate = get('validate');
  if (validate) out.push({ target: `validate ${String(validate['manifests'])} manifests ≤ 3 s`, measured: `${validate.wallMs} ms`, met: validate.wallMs <= 3000 });
  const apply = get('apply-p16');
  if (apply) {
    const lb = apply['lowerBoundMs'] as number;
    out.push({ target: 'apply p16 ≤ 1.5× lower bound', measured: `${apply.wallMs} ms vs ${lb} ms (${(apply.wallMs / lb).toFixed(2)}×)`, met: apply.wallMs <= 1.5 * lb });
  }
  const snap = get('snapshot');
  if (snap) {
    const mb = snap['exportMb'] as number;
    out.push({ target: `snapshot ${mb} MB save + verify ≤ 3 s`, measured: `${snap.wallMs} ms`, met: snap.wallMs <= 3000 });
    out.push({ target: 'snapshot peak RSS ≤ 3× file size', measured: `${snap.peakRssMb} MB vs ${Math.round(3 * mb)} MB`, met: snap.peakRssMb <= 3 * mb });
  }
  const help = get('help-cold');
  if (help) out.push({ target: 'mftops --help ≤ 150 ms median cold start', measured: `${help.wallMs} ms`, met: help.wallMs <= 150 });
  return out;
}

function table(): string {
  const rows = [['scenario', 'wall ms', 'cpu ms', 'rss MB', 'emulator cpu ms', 'requests', 'lower bound ms', 'fewest req', 'per-object reader (p10)']];
  for (const r of results) {
    const reader = r['perObjectReader'] as { requests: number; wallMs: number } | undefined;
    rows.push([
      r.name,
      String(r.wallMs),
      String(r.cpuMs),
      String(r.peakRssMb),
      r['emulatorCpuMs'] === undefined ? '' : String(r['emulatorCpuMs']),
      r.requests === undefined ? '' : String(r.requests),
      r['lowerBoundMs'] === undefined ? '' : String(r['lowerBoundMs']),
      r['fewestRequests'] === undefined ? '' : String(r['fewestRequests']),
      reader ? `${reader.requests} req, ${reader.wallMs} ms` : '',
    ]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const line = (row: string[]): string => row.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  const t = targets();
  const tw = Math.max(...t.map((x) => x.target.length), 6);
  return [
    line(rows[0]!),
    ...rows.slice(1).map(line),
    '',
    `${'target'.padEnd(tw)}  met  measured`,
    ...t.map((x) => `${x.target.padEnd(tw)}  ${x.met ? 'yes' : 'NO '}  ${x.measured}`),
  ].join('\n');
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'mftops-bench-'));
  const started = new Date();
  try {
    if (['validate', 'plan', 'drift', 'acl-reads', 'snapshot'].some(want)) await benchEstate(work);
    if (process.env.BENCH_HOLD) return; // held for profiling: nothing was measured
    for (const p of APPLY_LEVELS) if (want(`apply-p${p}`) || want('apply')) await benchApply(work, p);
    if (want('help-cold')) await benchColdStart('help-cold', ['--help']);
    if (want('validate-examples-cold')) await benchColdStart('validate-examples-cold', ['validate', 'examples/manifests', '-q']);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const doc = {
    startedAt: started.toISOString(),
    machine: { cores: cpus().length, cpuModel: cpus()[0]?.model, node: process.version, platform: `${process.platform}-${process.arch}` },
    estate: { ...SIZE, changed: '1% of each kind' },
    latencyMs: LATENCY,
    scenarios: results,
    targets: targets(),
  };
  mkdirSync(join(OUT, '..'), { recursive: true });
  writeFileSync(OUT, `${JSON.stringify(doc, null, 2)}\n`);
  process.stdout.write(`${table()}\n\nwritten: ${OUT}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
