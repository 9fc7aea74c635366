import { Worker } from 'node:worker_threads';

/** One file for the writer thread: its absolute path and its whole text. */
export type WriteItem = readonly [path: string, text: string];

/**
 * Called once per batch, in the order the batches were given: no error when every file of the
 * batch was written; else the error (an operating-system error: `code`, `syscall`, `path`) and
 * the index in the batch of the file that failed (the files after it were not written).
 */
export type BatchDone = (err: NodeJS.ErrnoException | undefined, at: number) => void;

/**
 * A thread that writes files, each created whole with `wx` (never over a file that is there), a
 * batch at a time, one after the other. Import stages thousands of files while it still reads:
 * on the thread pool each file cost the main thread three wake-ups (open, write, close), which
 * delayed the reads' answers; here a batch costs one message each way.
 */
export interface WriteThread {
  /** Queues a batch; `done` is called once it is written or failed. */
  write(items: readonly WriteItem[], done: BatchDone): void;
  /** Stops the thread; a batch in flight is not reported. Returns at once (a thread stuck on a disk is not waited for). */
  close(): void;
}

/**
 * The thread's code, evaluated (not a file): the same in the built package, under the test
 * runner from src/, and in the Action's one-file bundle. Plain JavaScript, `node:` modules only.
 */
const WRITER_CODE = `
const { parentPort } = require('node:worker_threads');
const { writeFileSync } = require('node:fs');
parentPort.on('message', ({ paths, lengths, bytes }) => {
  const all = new Uint8Array(bytes);
  for (let i = 0, at = 0; i < paths.length; at += lengths[i], i++) {
    try {
      writeFileSync(paths[i], all.subarray(at, at + lengths[i]), { flag: 'wx' });
    } catch (err) {
      const e = err ?? {};
      parentPort.postMessage({ at: i, error: { message: String(e.message), code: e.code, syscall: e.syscall, errno: e.errno, path: e.path } });
      return;
    }
  }
  parentPort.postMessage({ at: paths.length });
});
`;

interface Reply {
  readonly at: number;
  readonly error?: { readonly message: string; readonly code?: string; readonly syscall?: string; readonly errno?: number; readonly path?: string };
}

export function openWriteThread(): WriteThread {
  const pending: BatchDone[] = [];
  let worker: Worker | undefined;
  let closed = false;
  // The thread is gone (it threw, ran out of memory, or was stopped): every batch still waiting fails.
  const failAll = (err: NodeJS.ErrnoException): void => {
    worker = undefined;
    for (const done of pending.splice(0)) done(err, 0);
  };
  const start = (): Worker => {
    const w = new Worker(WRITER_CODE, { eval: true });
    w.on('message', (reply: Reply) => {
      const done = pending.shift();
      if (done === undefined) return;
      if (reply.error === undefined) return done(undefined, reply.at);
      const { message, ...fields } = reply.error;
      done(Object.assign(new Error(message), fields), reply.at);
    });
    w.on('error', (err: Error) => failAll(err));
    w.on('exit', (code) => {
      if (!closed) failAll(new Error(`the writer thread stopped (exit code ${code})`));
    });
    return w;
  };
  return {
    write(items, done) {
      if (closed) throw new Error('bug: a write after the writer thread was closed');
      worker ??= start();
      pending.push(done);
      // The texts as UTF-8 in one buffer of its own, moved to the thread, not copied (cloning the
      // strings was 0.2 s of the main thread for 13,000 files under load, profiled).
      const lengths = items.map(([, text]) => Buffer.byteLength(text));
      const bytes = Buffer.allocUnsafeSlow(lengths.reduce((a, b) => a + b, 0));
      let at = 0;
      for (const [, text] of items) at += bytes.write(text, at);
      worker.postMessage({ paths: items.map(([path]) => path), lengths, bytes: bytes.buffer }, [bytes.buffer]);
    },
    close() {
      closed = true;
      pending.length = 0;
      if (worker === undefined) return;
      worker.unref();
      void worker.terminate();
      worker = undefined;
    },
  };
}
