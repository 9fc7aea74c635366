import { lstatSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { MftopsError, systemError } from '../errors.js';
import { withDefined } from '../with-defined.js';
import type { PlannedPath } from './write-files.js';
import { placeWithoutReplacing } from './write-files.js';
import { openWriteThread } from './write-thread.js';
import type { WriteItem, WriteThread } from './write-thread.js';

/** A file to stage: where it goes, and its text, rendered just before it is written (`planImportPaths`). */
export type StagedFile = Pick<PlannedPath, 'relPath' | 'path' | 'render'>;

/** How a staging ended: every file in place, or stopped by `signal` with nothing in place and the staging folder removed. */
export type StageOutcome = 'written' | 'interrupted';

export interface StageOptions {
  /** Overwrite files that exist (renamed into place); without it a file there is never replaced. */
  readonly force: boolean;
  /**
   * Once aborted (Ctrl-C, SIGTERM; the caller listens for them and says the exit code): no new
   * write starts, and `finish` removes what was staged once no write is in flight, with
   * `interrupted`. The moves into place run in one synchronous block, which no abort interrupts.
   */
  readonly signal?: AbortSignal;
  /**
   * A disk that finishes no write for this long while writes are in flight is given up on:
   * `finish` throws one line and leaves the staging folder (removing it would hang on the same
   * disk). Default 60 s.
   */
  readonly stallMs?: number;
  /** The writer thread (default `openWriteThread`; tests give one whose disk stalls). */
  readonly openWriter?: () => WriteThread;
}

/**
 * Import's writer for thousands of files (issue 29), fed while the servers are still read: files
 * are added as each kind is drafted (`add`), written at once, and moved into place only by
 * `finish`, when everything succeeded; `discard` removes them. The promises are
 * `writeImportFiles`': all or none, no file half-written, none replaced without `force`, a
 * failure leaves no file and no folder of the call behind. What differs is the way:
 * - every file is first written whole into one hidden staging folder inside the output folder
 *   (`.mftops-import-XXXXXX`: the manifest loader skips hidden folders, and it is on the same
 *   file system, so moving out of it is a rename), by a writer thread (`openWriteThread`), a
 *   batch of files at a time: a file's creation is most of its cost and waits on the disk, and
 *   the main thread is left to the reads still in flight; each text is rendered just before its
 *   batch is handed over, so rendering and the disk overlap (and the texts are never all in
 *   memory at once);
 * - a kind folder that does not exist yet (a first import) moves into place whole, one rename
 *   for its thousands of files instead of a link and an unlink each; into a folder that exists,
 *   each file is linked (a file there is never replaced) or, with `force`, renamed into place;
 * - a failure while staging (the folder cannot be made, a write fails) is kept and thrown by
 *   `finish` only: an import that ends with nothing to write, or files in the way, says that, as
 *   when nothing was staged early.
 */
export interface ImportStage {
  /** Queues files to stage; each is rendered just before its write. Ignored once `discard` was called. */
  add(files: readonly StagedFile[]): void;
  /** Once every added file is staged: moves them all into place (`written`), or removes them (`interrupted`, or the first failure thrown). */
  finish(): Promise<StageOutcome>;
  /** Stops the writes and removes what was staged and the folders made, once no write is in flight. */
  discard(): Promise<void>;
}

/** Every file at once: `openImportStage`, `add`, `finish`. */
export async function writeStagedImportFiles(files: readonly StagedFile[], outDir: string, options: StageOptions): Promise<StageOutcome> {
  const stage = openImportStage(outDir, options);
  stage.add(files);
  return stage.finish();
}

/** A failure while staging, kept for `finish`. */
type Failure =
  | { readonly kind: 'render'; readonly err: unknown }
  | { readonly kind: 'write'; readonly err: unknown; readonly file?: StagedFile }
  | { readonly kind: 'stall'; readonly file?: StagedFile };

const DEFAULT_STALL_MS = 60_000;

export function openImportStage(outDir: string, options: StageOptions): ImportStage {
  const root = resolve(outDir);
  const stallMs = options.stallMs ?? DEFAULT_STALL_MS;
  const entries: { readonly file: StagedFile; readonly rel: string }[] = [];
  const createdDirs: string[] = [];
  const stagedDirs = new Set<string>();
  let stage: string | undefined;
  let next = 0;
  let inFlight = 0;
  let failure: Failure | undefined;
  let stopped = false;
  let ended = false;
  let lastStarted: StagedFile | undefined;
  const waiters: (() => void)[] = [];
  let stall: NodeJS.Timeout | undefined;
  const writer = (options.openWriter ?? openWriteThread)();

  const halted = (): boolean => failure !== undefined || stopped || options.signal?.aborted === true;
  const settledNow = (): boolean => failure?.kind === 'stall' || (inFlight === 0 && (halted() || next === entries.length));
  const wake = (): void => {
    if (!settledNow()) return;
    if (stall !== undefined && inFlight === 0) {
      clearTimeout(stall);
      stall = undefined;
    }
    for (const done of waiters.splice(0)) done();
  };
  const settled = (): Promise<void> => (settledNow() ? Promise.resolve() : new Promise<void>((done) => waiters.push(done)));
  const ensureStage = (): string => {
    if (stage !== undefined) return stage;
    const created = mkdirSync(root, { recursive: true });
    if (created !== undefined) createdDirs.push(created);
    stage = mkdtempSync(join(root, '.mftops-import-'));
    return stage;
  };
  // Rendered here, written by the writer thread a batch at a time: the main thread stays free for
  // the reads still in flight and the drafting (a write on the thread pool cost the main thread
  // three wake-ups per file, 1.3 s of 13,000 files under load, profiled).
  const pump = (): void => {
    while (inFlight < BATCHES_IN_FLIGHT && next < entries.length && !halted()) {
      let staged: string;
      const batch: StagedFile[] = [];
      const items: WriteItem[] = [];
      try {
        staged = ensureStage();
        while (batch.length < FILES_PER_BATCH && next < entries.length) {
          const e = entries[next]!;
          const dir = dirname(e.rel);
          if (!stagedDirs.has(dir)) {
            mkdirSync(join(staged, dir), { recursive: true });
            stagedDirs.add(dir);
          }
          let text: string;
          try {
            text = e.file.render();
          } catch (err) {
            failure = { kind: 'render', err };
            break;
          }
          next++;
          batch.push(e.file);
          items.push([join(staged, e.rel), text]);
        }
      } catch (err) {
        failure = { kind: 'write', err, file: lastStarted ?? entries[next]!.file };
        break;
      }
      if (batch.length === 0) break;
      lastStarted = batch.at(-1);
      inFlight++;
      if (stall === undefined) stall = setTimeout(onStall, stallMs);
      writer.write(items, (err, at) => {
        inFlight--;
        stall?.refresh();
        if (err !== undefined) failure ??= { kind: 'write', err, file: batch[at] };
        pump();
        wake();
      });
      if (failure !== undefined) break;
    }
    wake();
  };
  const onStall = (): void => {
    failure ??= { kind: 'stall', ...withDefined({ file: lastStarted }) };
    stall = undefined;
    wake();
  };
  const cleanUp = (): void => {
    if (failure?.kind === 'stall') return;
    if (stage !== undefined) rmSync(stage, { recursive: true, force: true });
    for (const dir of [...createdDirs].reverse()) rmSync(dir, { recursive: true, force: true });
  };
  const onAbort = (): void => wake();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const end = (): void => {
    ended = true;
    writer.close();
    options.signal?.removeEventListener('abort', onAbort);
  };

  return {
    add(files) {
      // A stage being discarded (a read failed, or a signal) takes no more: the drafter of the
      // kinds already read may still be finishing its part.
      if (stopped) return;
      if (ended) throw new Error('bug: files added to an import stage that has ended');
      for (const file of files) {
        // From `relPath` (a join per file; `relative` resolved both paths of each, 0.2 s of 13,000 files, profiled).
        const parts = file.relPath.split('/');
        const rel = parts.join(sep);
        if (parts.length < 2 || parts.some((p) => p === '' || p === '.' || p === '..') || join(root, rel) !== file.path)
          throw new Error(`bug: ${file.path} is not ${file.relPath} in a folder of ${root}`);
        entries.push({ file, rel });
      }
      pump();
    },
    async discard() {
      stopped = true;
      await settled();
      if (!ended) {
        end();
        cleanUp();
      }
    },
    async finish() {
      if (ended) throw new Error('bug: an import stage finished twice');
      await settled();
      end();
      if (failure?.kind === 'stall') {
        const where = stage === undefined ? '' : ` (the hidden folder ${stage} may be left behind)`;
        throw new MftopsError(
          `cannot write ${failure.file?.path ?? 'the files'}: the disk finished no write in ${Math.round(stallMs / 1000)} s; nothing was written${where}`,
        );
      }
      if (options.signal?.aborted === true || stopped) {
        cleanUp();
        return 'interrupted';
      }
      let current: StagedFile | undefined = failure?.kind === 'write' ? failure.file : entries[0]?.file;
      try {
        if (failure !== undefined) throw failure.kind === 'render' ? new RenderFailure(failure.err) : failure.err;
        const staged = ensureStage();
        // From here on synchronous: no signal handler runs until every file is in place or none is.
        const placed: string[] = [];
        let clash: StagedFile | undefined;
        try {
          for (const [top, group] of groupByTopFolder(entries)) {
            current = group[0]!.file;
            if (moveFolderIfAbsent(join(staged, top), join(root, top))) {
              createdDirs.push(join(root, top));
              continue;
            }
            for (const { file, rel } of group) {
              current = file;
              const made = mkdirSync(dirname(file.path), { recursive: true });
              if (made !== undefined) createdDirs.push(made);
              if (options.force) renameSync(join(staged, rel), file.path);
              else {
                clash = file;
                placeWithoutReplacing(join(staged, rel), file.path);
                clash = undefined;
                placed.push(file.path);
              }
            }
          }
        } catch (err) {
          for (const path of placed) rmSync(path, { force: true });
          if (clash !== undefined && isCode(err, 'EEXIST')) throw new MftopsError(`refusing to overwrite ${clash.relPath} (use --force); nothing was written`);
          throw err;
        }
        rmSync(staged, { recursive: true, force: true });
        return 'written';
      } catch (err) {
        cleanUp();
        if (err instanceof RenderFailure) throw err.cause;
        if (err instanceof MftopsError) throw err;
        throw systemError(`cannot write ${current?.path ?? 'the files'}; nothing was written`, err);
      }
    },
  };
}

/** A text that could not be made (a bug): thrown as it was, not as a write that failed. */
class RenderFailure extends Error {
  constructor(cause: unknown) {
    super('render failed', { cause });
  }
}

/**
 * Batches given to the writer thread at once: two, so that it writes one while the next is
 * rendered here; small batches, so that rendering runs between the reads' answers and the texts
 * in memory at once stay few.
 */
const BATCHES_IN_FLIGHT = 2;
const FILES_PER_BATCH = 64;

/** The entries by the first folder of their path (`tasks`, `access`), in the order first met. */
function groupByTopFolder<E extends { readonly rel: string }>(entries: readonly E[]): Map<string, E[]> {
  const groups = new Map<string, E[]>();
  for (const e of entries) {
    const top = e.rel.slice(0, e.rel.indexOf(sep));
    let group = groups.get(top);
    if (group === undefined) groups.set(top, (group = []));
    group.push(e);
  }
  return groups;
}

/**
 * Renames the staged folder to `target` when nothing is there (not even a symbolic link), in one
 * step. False when something is there, or appeared since the check and is not an empty folder
 * (the rename fails then, and the files go in one by one).
 */
function moveFolderIfAbsent(staged: string, target: string): boolean {
  try {
    lstatSync(target);
    return false;
  } catch (err) {
    if (!isCode(err, 'ENOENT')) throw err;
  }
  try {
    renameSync(staged, target);
    return true;
  } catch (err) {
    if (isCode(err, 'EEXIST') || isCode(err, 'ENOTEMPTY') || isCode(err, 'ENOTDIR') || isCode(err, 'EISDIR')) return false;
    throw err;
  }
}

function isCode(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === code;
}
