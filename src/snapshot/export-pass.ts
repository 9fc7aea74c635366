import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import type { ConfigXmlVerdict } from './config-xml.js';
import { HEADER_BYTES, startDecryption, startEncryption, TRAILER_BYTES, type SnapshotKey } from './crypto.js';
import { XmlChecker, type XmlCheck } from './xml-checker.js';
import { withDefined } from '../with-defined.js';

/**
 * One pass over a stored export, in chunks: never the whole file in memory (a 100 MB export,
 * hashed and checked in one read). Synchronous on purpose: each chunk is consumed as soon as it
 * is read (into one reused buffer), and callers that fsync run it meanwhile on the thread pool.
 * (Hashing on a worker thread was tried: starting the worker cost more than it saved in a
 * command that runs once.)
 */

/** What one pass found. */
export interface ExportPass {
  /** Plaintext bytes. */
  readonly bytes: number;
  /** sha256 of the plaintext, lowercase hex. */
  readonly sha256: string;
  /** The streaming checker's verdict; absent when the pass was asked not to check. */
  readonly xml?: XmlCheck;
}

/** Read size: big enough that the system calls cost nothing, small enough to stay in cache. */
const CHUNK_BYTES = 1 << 20;

/** Hash (and check, unless `check` is false) the plaintext file at `path`. File errors are thrown as they come. */
export function passPlainFile(path: string, check = true): ExportPass {
  const fd = openSync(path, 'r');
  try {
    const sink = startSink(check);
    forEachChunk(fd, 0, Number.POSITIVE_INFINITY, (chunk) => sink.add(chunk));
    return sink.end();
  } finally {
    closeSync(fd);
  }
}

/**
 * Decrypt the file at `path` (see crypto.ts for the layout), hashing and checking the plaintext.
 * A file that is not ours or fails authentication throws SnapshotIntegrityError naming
 * `plainName`.enc, before anything is answered.
 */
export function passEncryptedFile(path: string, key: SnapshotKey, plainName: string, where: string, check = true): ExportPass {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const head = readAt(fd, 0, Math.min(HEADER_BYTES, size));
    const tag = readAt(fd, Math.max(0, size - TRAILER_BYTES), Math.min(TRAILER_BYTES, size));
    const decryption = startDecryption(key, size, head, tag, plainName, where);
    const sink = startSink(check);
    forEachChunk(fd, HEADER_BYTES, size - TRAILER_BYTES, (chunk) => sink.add(decryption.update(chunk)));
    sink.add(decryption.final());
    return sink.end();
  } finally {
    closeSync(fd);
  }
}

/** Write the plaintext file `from` encrypted to `fd` (an open, empty file). */
export function encryptFileTo(from: string, fd: number, key: SnapshotKey, plainName: string): void {
  const encryption = startEncryption(key, plainName);
  writeAll(fd, encryption.header);
  const source = openSync(from, 'r');
  try {
    forEachChunk(source, 0, Number.POSITIVE_INFINITY, (chunk) => writeAll(fd, encryption.update(chunk)));
  } finally {
    closeSync(source);
  }
  writeAll(fd, encryption.final());
}

/**
 * The verdict on a checked pass: its task count when the streaming checker vouches for the
 * export; otherwise fast-xml-parser decides on the whole text (`readText` is only called then,
 * and only then is the library loaded), with the same problem text and task count as before the
 * checker existed; a DOCTYPE or entity declaration is refused without it. `count: false` is checkConfigXml's cheaper parse (task count 0).
 */
export async function settleExportXml(pass: ExportPass, readText: () => string, count: boolean): Promise<ConfigXmlVerdict> {
  if (!pass.xml) throw new Error('settleExportXml: the pass did not check the XML');
  if (pass.xml.ok) return count ? { taskCount: pass.xml.taskCount, contents: pass.xml.contents } : { taskCount: 0 };
  // Lazy (measured): store.ts imports this module, and `snapshot list` and `verify` load none of
  // fast-xml-parser's 11 files this way.
  const { checkConfigXml, inspectConfigXml, DECLARATION_PROBLEM } = await import('./config-xml.js');
  // Never handed to fast-xml-parser (see XmlRefusal.declaration).
  if (pass.xml.declaration) return { problem: DECLARATION_PROBLEM, declaration: true };
  const text = readText();
  if (count) return inspectConfigXml(text);
  const problem = checkConfigXml(text);
  return problem === undefined ? { taskCount: 0 } : { problem };
}

interface Sink {
  add(chunk: Uint8Array): void;
  end(): ExportPass;
}

function startSink(check: boolean): Sink {
  const hash = createHash('sha256');
  const checker = check ? new XmlChecker() : undefined;
  let bytes = 0;
  return {
    add: (chunk) => {
      if (chunk.length === 0) return;
      bytes += chunk.length;
      hash.update(chunk);
      checker?.push(chunk);
    },
    end: () => ({ bytes, sha256: hash.digest('hex'), ...withDefined({ xml: checker?.end() }) }),
  };
}

/** Bytes [from, to) of `fd` in chunks (the buffer is reused: consume each chunk before returning). */
function forEachChunk(fd: number, from: number, to: number, onChunk: (chunk: Buffer) => void): void {
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let position = from;
  while (position < to) {
    const want = Math.min(CHUNK_BYTES, to - position);
    const n = readSync(fd, buffer, 0, want, position);
    if (n === 0) break;
    position += n;
    onChunk(buffer.subarray(0, n));
  }
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buffer, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return buffer.subarray(0, got);
}

function writeAll(fd: number, data: Uint8Array): void {
  let done = 0;
  while (done < data.length) done += writeSync(fd, data, done, data.length - done);
}
