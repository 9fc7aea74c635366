import { closeSync, mkdirSync, openSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningEmulator } from '../src/emulator/index.js';

/**
 * The `import` scenario (issue 29): `mftops import --all` of the whole bench estate (every task,
 * resource-group ACL and folder the accounts see, one file each) into an empty manifests folder,
 * at the bench latency and the plan's parallelism, timed like every CLI run. Its floor is
 * modelled like plan's: the fewest requests the API references need (`importFewestRequests`) ×
 * latency ÷ parallelism. Beside it, measured in this process: the time this machine's disk takes
 * to create as many empty files (`fileCreateMs`), a floor under any import that the request floor
 * does not count.
 */

/** What the scenario needs from the bench (run-bench.ts owns the child processes and the request log). */
export interface ImportBench {
  readonly latencyMs: number;
  readonly parallelism: number;
  readonly runCli: (args: readonly string[], cwd: string) => Promise<ImportRun>;
  readonly counted: <T>(
    emulator: RunningEmulator,
    fn: () => Promise<T>,
  ) => Promise<{ value: T; requests: number; tokenRequests: number; writes: number; emulatorCpuMs: number; peakConcurrency: number }>;
  /** The mftops.yaml of an environment `bench` on the emulator, reading `manifests`. */
  readonly configFile: (emulator: RunningEmulator, opts: { transfer: boolean; manifests: string[] }) => string;
}

export interface ImportRun {
  readonly exitCode: number | null;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly peakRssMb: number;
  readonly emulatorCpuMs: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The fewest requests an import of everything needs, by the API references: a token per service,
 * one list per automation kind (tasks, hosts, custom and standard scripts, date lists: the names
 * of the ids in tasks; resource-group ACLs), the folder pages (1,000 a page), one ACL read per
 * folder (no bulk ACL read exists), a revoke per service.
 */
export function importFewestRequests(folders: number): { total: number; parts: Record<string, number> } {
  const parts = {
    tokens: 2,
    automationLists: 6,
    folderPages: Math.ceil(folders / 1000),
    folderAcls: folders,
    tokenRevokes: 2,
  };
  return { total: Object.values(parts).reduce((a, b) => a + b, 0), parts };
}

/** Files below `dir`, by first-level folder. */
function countFiles(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) out[entry.name] = readdirSync(join(dir, entry.name)).length;
  }
  return out;
}

/** Wall time to create `count` empty files in one folder under `dir` (then removed). */
function timeFileCreation(dir: string, count: number): number {
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  for (let i = 0; i < count; i++) closeSync(openSync(join(dir, `f${i}.yaml`), 'wx'));
  const ms = Math.round(performance.now() - started);
  rmSync(dir, { recursive: true, force: true });
  return ms;
}

/** `mftops import --all` of the estate the emulator holds, into `work/import`. */
export async function benchImport(
  bench: ImportBench,
  emulator: RunningEmulator,
  work: string,
): Promise<Record<string, unknown> & { name: string; wallMs: number; cpuMs: number; peakRssMb: number }> {
  const dir = join(work, 'import');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'mftops.yaml'), bench.configFile(emulator, { transfer: true, manifests: ['manifests'] }));
  const folders = emulator.state.transfer.folders.length;
  const fewest = importFewestRequests(folders);
  try {
    const c = await bench.counted(emulator, () => bench.runCli(['import', '--all', '--parallelism', String(bench.parallelism), '-q'], dir));
    const r = c.value;
    const files = r.exitCode === 0 ? countFiles(join(dir, 'manifests')) : {};
    const objects = Object.values(files).reduce((a, b) => a + b, 0);
    return {
      name: 'import',
      objects,
      files,
      latencyMs: bench.latencyMs,
      parallelism: bench.parallelism,
      wallMs: r.wallMs,
      cpuMs: r.cpuMs,
      peakRssMb: r.peakRssMb,
      emulatorCpuMs: r.emulatorCpuMs,
      requests: c.requests,
      tokenRequests: c.tokenRequests,
      writes: c.writes,
      peakConcurrency: c.peakConcurrency,
      exitCode: r.exitCode,
      fewestRequests: fewest.total,
      fewestRequestsParts: fewest.parts,
      lowerBoundMs: Math.round((fewest.total * bench.latencyMs) / bench.parallelism),
      fileCreateMs: timeFileCreation(join(work, 'import-file-floor'), objects),
      ...(r.exitCode !== 0 ? { stderr: r.stderr.slice(-2000) } : {}),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
