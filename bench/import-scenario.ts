import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeStagedImportFiles } from '../src/import/stage-files.js';
import type { Run } from './cli-run.js';
import type { BenchServers } from './emulator-pair.js';

/**
 * The `import` scenario (issue 29): `mftops import --all` of the whole bench estate (every task,
 * resource-group ACL and folder the accounts see, one file each) into an empty manifests folder,
 * at the bench latency and the plan's parallelism, timed like every CLI run. Its floor is
 * modelled like plan's: the fewest requests the API references need (`importFewestRequests`) ×
 * latency ÷ parallelism. Beside it, measured in this process: the time this machine's disk takes
 * to write as many files of the same sizes the way import does (`fileWriteMs`), and to create them
 * in place one by one (`fileCreateMs`, the disk's floor under any import, which the request floor
 * does not count).
 */

/** What the scenario needs from the bench (run-bench.ts owns the child processes and the request log). */
export interface ImportBench {
  readonly latencyMs: number;
  readonly parallelism: number;
  readonly runCli: (args: readonly string[], cwd: string) => Promise<Run>;
  readonly counted: <T>(
    emulator: BenchServers,
    fn: () => Promise<T>,
  ) => Promise<{ value: T; requests: number; tokenRequests: number; writes: number; emulatorCpuMs: number; peakConcurrency: number }>;
  /** The mftops.yaml of an environment `bench` on the emulator, reading `manifests`. */
  readonly configFile: (emulator: BenchServers, opts: { transfer: boolean; manifests: string[] }) => string;
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

/** Every file below `dir` (one level of folders, as import writes them), with its size. */
function listFiles(dir: string): { folder: string; size: number }[] {
  const out: { folder: string; size: number }[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    for (const file of readdirSync(join(dir, entry.name))) out.push({ folder: entry.name, size: statSync(join(dir, entry.name, file)).size });
  }
  return out;
}

/**
 * Wall time to write files of these sizes under `dir` (then removed), two ways: the way import
 * writes them (`writeStagedImportFiles`: staged whole in a hidden folder, 8 at a time, each new
 * kind folder renamed into place), and the least any writer must do, each file created whole in
 * place, one after the other, no temporary (`createMs`): the part of an import this machine's
 * disk sets, which the request floor does not count.
 */
async function timeFileWrites(dir: string, files: readonly { folder: string; size: number }[]): Promise<{ importMs: number; createMs: number }> {
  const staged = files.map((f, i) => {
    const text = 'x'.repeat(f.size);
    return { relPath: `${f.folder}/f${i}.yaml`, path: join(dir, 'staged', f.folder, `f${i}.yaml`), render: () => text };
  });
  let started = performance.now();
  await writeStagedImportFiles(staged, join(dir, 'staged'), { force: false });
  const importMs = Math.round(performance.now() - started);
  started = performance.now();
  for (const folder of new Set(files.map((f) => f.folder))) mkdirSync(join(dir, 'plain', folder), { recursive: true });
  files.forEach((f, i) => writeFileSync(join(dir, 'plain', f.folder, `f${i}.yaml`), 'x'.repeat(f.size), { flag: 'wx' }));
  const createMs = Math.round(performance.now() - started);
  rmSync(dir, { recursive: true, force: true });
  return { importMs, createMs };
}

/** `mftops import --all` of the estate the emulator holds, into `work/import`. */
export async function benchImport(
  bench: ImportBench,
  emulator: BenchServers,
  work: string,
): Promise<Record<string, unknown> & { name: string; wallMs: number; cpuMs: number; peakRssMb: number }> {
  const dir = join(work, 'import');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'mftops.yaml'), bench.configFile(emulator, { transfer: true, manifests: ['manifests'] }));
  const folders = (await emulator.facts()).folders;
  const fewest = importFewestRequests(folders);
  try {
    const c = await bench.counted(emulator, () => bench.runCli(['import', '--all', '--parallelism', String(bench.parallelism), '-q'], dir));
    const r = c.value;
    const written = r.exitCode === 0 ? listFiles(join(dir, 'manifests')) : [];
    const files: Record<string, number> = {};
    for (const f of written) files[f.folder] = (files[f.folder] ?? 0) + 1;
    const objects = written.length;
    const disk = await timeFileWrites(join(work, 'import-file-floor'), written);
    return {
      name: 'import',
      objects,
      files,
      latencyMs: bench.latencyMs,
      parallelism: bench.parallelism,
      wallMs: r.wallMs,
      cpuMs: r.cpuMs,
      peakRssMb: r.peakRssMb,
      emulatorCpuMs: c.emulatorCpuMs,
      requests: c.requests,
      tokenRequests: c.tokenRequests,
      writes: c.writes,
      peakConcurrency: c.peakConcurrency,
      exitCode: r.exitCode,
      fewestRequests: fewest.total,
      fewestRequestsParts: fewest.parts,
      lowerBoundMs: Math.round((fewest.total * bench.latencyMs) / bench.parallelism),
      fileWriteMs: disk.importMs,
      fileCreateMs: disk.createMs,
      ...(r.exitCode !== 0 ? { stderr: r.stderr.slice(-2000) } : {}),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
