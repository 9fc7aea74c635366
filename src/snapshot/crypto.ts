import { createCipheriv, createDecipheriv, createHmac, randomBytes, type CipherGCM, type DecipherGCM } from 'node:crypto';
import { SnapshotError, SnapshotIntegrityError } from './errors.js';

/** The environment variable that turns encryption on. */
export const SNAPSHOT_KEY_VARIABLE = 'MFTOPS_SNAPSHOT_KEY';

/**
 * Layout of an encrypted snapshot file: `MAGIC | iv (12) | ciphertext | tag (16)`, AES-256-GCM,
 * with the plaintext file name as additional data (a file renamed into another's place fails).
 */
const MAGIC = Buffer.from('MFTSNAP1', 'ascii');
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Bytes before the ciphertext. */
export const HEADER_BYTES = MAGIC.length + IV_BYTES;
/** Bytes after it. */
export const TRAILER_BYTES = TAG_BYTES;

/** A 32-byte AES key, kept out of logs like a Secret. */
export interface SnapshotKey {
  readonly bytes: Buffer;
  /** One-way check value stored in snapshot.json (see SnapshotManifest.encryption). */
  readonly check: string;
}

/**
 * The key in `MFTOPS_SNAPSHOT_KEY` (64 hex digits or base64 of 32 bytes), or undefined when the
 * variable is unset or empty. A malformed key is an error that never shows the value.
 */
export function readSnapshotKey(env: NodeJS.ProcessEnv): SnapshotKey | undefined {
  const raw = env[SNAPSHOT_KEY_VARIABLE]?.trim();
  if (raw === undefined || raw === '') return undefined;
  let bytes: Buffer;
  // Only hex digits, even length: hex (32 bytes of base64 always end in `=` or have an odd length).
  if (/^(?:[0-9a-fA-F]{2})+$/.test(raw)) bytes = Buffer.from(raw, 'hex');
  else if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(raw)) bytes = Buffer.from(raw, 'base64');
  else throw new SnapshotError(`${SNAPSHOT_KEY_VARIABLE} is neither hex nor base64: give 32 random bytes as 64 hex digits or base64`);
  if (bytes.length !== 32) {
    throw new SnapshotError(`${SNAPSHOT_KEY_VARIABLE} must be 32 bytes (64 hex digits or 44 base64 characters); it decodes to ${bytes.length} bytes`);
  }
  return { bytes, check: createHmac('sha256', bytes).update('mftops snapshot key check v1').digest('hex').slice(0, 16) };
}

export function encryptBuffer(key: SnapshotKey, plaintext: Buffer, fileName: string): Buffer {
  const encryption = startEncryption(key, fileName);
  return Buffer.concat([encryption.header, encryption.update(plaintext), encryption.final()]);
}

/** The plaintext; a changed byte, a truncated file or another file's content fails naming `fileName`. */
export function decryptBuffer(key: SnapshotKey, data: Buffer, fileName: string, where: string): Buffer {
  const decryption = startDecryption(
    key,
    data.length,
    data.subarray(0, HEADER_BYTES),
    data.subarray(Math.max(0, data.length - TRAILER_BYTES)),
    fileName,
    where,
  );
  return Buffer.concat([decryption.update(data.subarray(HEADER_BYTES, data.length - TRAILER_BYTES)), decryption.final()]);
}

/**
 * Encryption of a file too big to hold: write `header`, then what `update` answers for each
 * plaintext chunk in order, then what `final` answers (the rest and the tag). Same layout as
 * encryptBuffer.
 */
export interface StreamEncryption {
  readonly header: Buffer;
  update(chunk: Uint8Array): Buffer;
  final(): Buffer;
}

export function startEncryption(key: SnapshotKey, fileName: string): StreamEncryption {
  const iv = randomBytes(IV_BYTES);
  const cipher: CipherGCM = createCipheriv('aes-256-gcm', key.bytes, iv);
  cipher.setAAD(Buffer.from(fileName, 'utf8'));
  return {
    header: Buffer.concat([MAGIC, iv]),
    update: (chunk) => cipher.update(chunk),
    final: () => Buffer.concat([cipher.final(), cipher.getAuthTag()]),
  };
}

/**
 * Decryption of a file of `size` bytes read in parts: `head` is its first HEADER_BYTES, `tag` its
 * last TRAILER_BYTES; feed `update` the bytes between, in order. Nothing it answers may be trusted
 * before `final` returned: it throws, naming `fileName`, when the file changed (as decryptBuffer).
 */
export interface StreamDecryption {
  update(chunk: Uint8Array): Buffer;
  final(): Buffer;
}

export function startDecryption(key: SnapshotKey, size: number, head: Buffer, tag: Buffer, fileName: string, where: string): StreamDecryption {
  const encName = `${fileName}.enc`;
  if (size < MAGIC.length + IV_BYTES + TAG_BYTES || !head.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new SnapshotIntegrityError(`${where}: ${encName} is not an mftops encrypted file (truncated or replaced)`, encName);
  }
  const decipher: DecipherGCM = createDecipheriv('aes-256-gcm', key.bytes, head.subarray(MAGIC.length, MAGIC.length + IV_BYTES));
  decipher.setAAD(Buffer.from(fileName, 'utf8'));
  decipher.setAuthTag(tag);
  const failed = (): SnapshotIntegrityError =>
    new SnapshotIntegrityError(`${where}: ${encName} fails authentication: the file changed after it was saved`, encName);
  return {
    update: (chunk) => {
      try {
        return decipher.update(chunk);
      } catch {
        throw failed();
      }
    },
    final: () => {
      try {
        return decipher.final();
      } catch {
        throw failed();
      }
    },
  };
}
