import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writing a file so that a reader (or a crash) sees the old file or the whole new one, never a
 * part: the bytes go to a temporary name in the same folder (a rename is atomic only within one
 * file system), are synced, and the temporary file is renamed over the target. On any failure
 * the temporary file is removed and the file system's error is thrown for the caller to word.
 * The sync form serves writers that must finish before they return (the lock's renewal, which
 * `release` must not race); the async one the snapshot, whose files can be large.
 */

/** `mode` of a new file (the process umask applies); an existing target is replaced, not chmodded. */
export interface AtomicWriteOptions {
  readonly mode: number;
}

export function writeFileAtomicSync(path: string, data: string | Uint8Array, opts: AtomicWriteOptions): void {
  const tmp = temporaryPathFor(path);
  try {
    const fd = openSync(tmp, 'wx', opts.mode);
    try {
      writeFileSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** `data` may be a writer that fills the open file itself (a stream encrypted straight into it). */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array | ((file: FileHandle) => void | Promise<void>),
  opts: AtomicWriteOptions,
): Promise<void> {
  const tmp = temporaryPathFor(path);
  try {
    const file = await open(tmp, 'wx', opts.mode);
    try {
      if (typeof data === 'function') await data(file);
      else await file.writeFile(data);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** `.plan.json.1f2e3d4c5b6a.tmp` beside `plan.json`: hidden, and unique to this write. */
function temporaryPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
}
