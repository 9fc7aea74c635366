import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeEstateManifests } from './estate.js';
import type { EstateSize } from './estate.js';
import { generateTaskManifest } from './generate-manifests.js';
import type { Run } from './cli-run.js';

/**
 * The manifest scenarios of issue 29 (no server): `fmt --check` of the estate's manifests beside
 * `validate` of the same files, and `validate` of a large input (~55 MB: a few multi-document
 * files as an export or a one-file-per-kind layout writes them, and the many small files of the
 * estate), for peak RSS per manifest byte.
 */

/** The large input: files of many task documents, and the estate's files. */
export const LARGE_INPUT = { bigFiles: 7, documentsPerFile: 8_000, estate: { tasks: 10_000, folders: 2_000, acls: 1_000 } satisfies EstateSize } as const;

/** Writes the large input under `dir` (`big/` and `small/`); returns its bytes and documents. */
export function writeLargeManifests(dir: string): { bytes: number; documents: number; files: number } {
  const big = join(dir, 'big');
  mkdirSync(big, { recursive: true });
  let bytes = 0;
  let n = 0;
  for (let f = 0; f < LARGE_INPUT.bigFiles; f++) {
    const parts: string[] = [];
    for (let i = 0; i < LARGE_INPUT.documentsPerFile; i++)
      parts.push(generateTaskManifest(n++).replace('Generated task', 'Large task').replace('Old generated task', 'Old large task'));
    const text = parts.join('---\n');
    writeFileSync(join(big, `tasks-${f}.yaml`), text);
    bytes += Buffer.byteLength(text);
  }
  const small = join(dir, 'small');
  writeEstateManifests(small, LARGE_INPUT.estate, false);
  const { tasks, folders, acls } = LARGE_INPUT.estate;
  for (let i = 0; i < tasks; i++) bytes += statSync(join(small, 'task', `batch-${String(Math.floor(i / 50)).padStart(3, '0')}`, `task-${i}.yaml`)).size;
  for (let i = 0; i < folders; i++) bytes += statSync(join(small, 'folder', `batch-${String(Math.floor(i / 50)).padStart(3, '0')}`, `folder-${i}.yaml`)).size;
  for (let i = 0; i < acls; i++) bytes += statSync(join(small, 'acl', `batch-${String(Math.floor(i / 50)).padStart(3, '0')}`, `acl-${i}.yaml`)).size;
  return { bytes, documents: n + tasks + folders + acls, files: LARGE_INPUT.bigFiles + tasks + folders + acls };
}

/** `validate` of the large input in `dir`, with its peak RSS per manifest byte. */
export async function measureValidateLarge(dir: string, runCli: (args: readonly string[], cwd: string) => Promise<Run>): Promise<Record<string, unknown>> {
  const input = writeLargeManifests(join(dir, 'large'));
  const r = await runCli(['validate', 'large', '-q'], dir);
  const inputMb = input.bytes / 1024 / 1024;
  return {
    name: 'validate-large',
    inputBytes: input.bytes,
    inputMb: Math.round(inputMb * 10) / 10,
    documents: input.documents,
    files: input.files,
    wallMs: r.wallMs,
    cpuMs: r.cpuMs,
    peakRssMb: r.peakRssMb,
    rssPerInputByte: Math.round((r.peakRssMb / inputMb) * 100) / 100,
    exitCode: r.exitCode,
    ...(r.exitCode !== 0 ? { stderr: r.stderr.slice(-2000) } : {}),
  };
}

/** How many times each of `validate` and `fmt --check` runs: their difference is smaller than one run's noise. */
export const MANIFEST_RUNS = 3;

/** The run with the median wall time of an odd number of runs. */
export function medianRun(runs: readonly Run[]): Run {
  return [...runs].sort((x, y) => x.wallMs - y.wallMs)[Math.floor(runs.length / 2)]!;
}

/**
 * `validate` and `fmt --check` of the estate's manifests in `dir` (the same files), run in turns
 * (validate, fmt, validate, ...) so that both meet the same machine, each reported by its median
 * run with every run's wall time. The fmt target compares two figures ~10 % apart, less than the
 * spread of one run on a 2-core machine: a single run of each decided it by chance.
 */
export async function measureValidateAndFmt(
  dir: string,
  manifests: number,
  runCli: (args: readonly string[], cwd: string) => Promise<Run>,
  which: { readonly validate: boolean; readonly fmt: boolean },
): Promise<Record<string, unknown>[]> {
  const validates: Run[] = [];
  const fmts: Run[] = [];
  for (let i = 0; i < MANIFEST_RUNS; i++) {
    if (which.validate) validates.push(await runCli(['validate', 'manifests', '-q'], dir));
    if (which.fmt) fmts.push(await runCli(['fmt', '--check', 'manifests', '-q'], dir));
  }
  const out: Record<string, unknown>[] = [];
  if (which.validate) {
    const r = medianRun(validates);
    out.push({ name: 'validate', manifests, ...figures(r, validates), exitCode: r.exitCode, ...(r.exitCode !== 0 ? { stderr: r.stderr.slice(-2000) } : {}) });
  }
  if (which.fmt) {
    const r = medianRun(fmts);
    out.push({
      name: 'fmt',
      manifests,
      // exit 1 with the files listed: the estate's manifests are written by hand, 1 in 5 task files with keys out of schema order.
      unformatted: r.stdout.split('\n').filter((l) => l.trim() !== '').length,
      ...figures(r, fmts),
      exitCode: r.exitCode,
      ...(r.exitCode !== 0 && r.exitCode !== 1 ? { stderr: r.stderr.slice(-2000) } : {}),
    });
  }
  return out;
}

function figures(r: Run, runs: readonly Run[]): Record<string, unknown> {
  return { wallMs: r.wallMs, cpuMs: r.cpuMs, peakRssMb: r.peakRssMb, emulatorCpuMs: r.emulatorCpuMs, runsWallMs: runs.map((x) => x.wallMs) };
}
