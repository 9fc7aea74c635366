import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isRecord } from '../is-record.js';
import { decryptBuffer, readSnapshotKey, SNAPSHOT_KEY_VARIABLE, type SnapshotKey } from './crypto.js';
import { SnapshotError, SnapshotIntegrityError } from './errors.js';
import { passEncryptedFile, passPlainFile, settleExportXml, type ExportPass } from './export-pass.js';
import {
  ACCOUNTS_FILE,
  AUTOMATION_FILE,
  ENCRYPTED_SUFFIX,
  ENVIRONMENT_NAME,
  FOLDERS_FILE,
  MANIFEST_FILE,
  READABLE_FORMAT_VERSIONS,
  SNAPSHOT_ID,
  type SavedAccounts,
  type SavedFolder,
  type SavedFolders,
  type SnapshotFile,
  type SnapshotInfo,
  type SnapshotList,
  type SnapshotManifest,
  type UnreadableSnapshot,
  type VerifiedSnapshot,
} from './model.js';
import { withDefined } from '../with-defined.js';
import { parseSavedAccounts } from './read-accounts.js';

/** Where a snapshot lives: `<dir>/<env>/<id>`. */
export interface SnapshotRef {
  readonly env: string;
  readonly id: string;
}

/** Options shared by the reading functions. */
export interface ReadOptions {
  /** Only this environment's snapshots (the CLI passes the selected environment). */
  readonly env?: string;
  /** Where `MFTOPS_SNAPSHOT_KEY` is read for encrypted snapshots; default `process.env`. */
  readonly processEnv?: NodeJS.ProcessEnv;
}

export function snapshotPath(dir: string, ref: SnapshotRef): string {
  return join(dir, ref.env, ref.id);
}

export function describeRef(ref: SnapshotRef): string {
  return `${ref.env}/${ref.id}`;
}

/** Every snapshot under `dir` (of one environment when `env` is given), oldest first. */
export function listSnapshots(dir: string, env?: string): SnapshotList {
  const snapshots: SnapshotInfo[] = [];
  const unreadable: UnreadableSnapshot[] = [];
  for (const ref of listSnapshotRefs(dir, env)) {
    try {
      snapshots.push(toInfo(readManifest(dir, ref), snapshotPath(dir, ref)));
    } catch (err) {
      if (!(err instanceof SnapshotError)) throw err;
      unreadable.push({ ...ref, path: snapshotPath(dir, ref), reason: err.message });
    }
  }
  return { snapshots, unreadable };
}

/** Snapshot folders (by name only), oldest first within each environment, environments by name. */
export function listSnapshotRefs(dir: string, env?: string): SnapshotRef[] {
  const envs = env !== undefined ? [env] : subfolders(dir).filter((n) => !n.startsWith('.'));
  return envs.flatMap((e) =>
    subfolders(join(dir, e))
      .filter((n) => SNAPSHOT_ID.test(n))
      .sort()
      .map((id) => ({ env: e, id })),
  );
}

/**
 * The snapshot an argument names: a full id, a unique prefix of one, `latest`, or any of these
 * after `ENV/`. Unknown and ambiguous arguments are errors that say what exists.
 */
export function resolveSnapshotId(dir: string, arg: string, env?: string): SnapshotRef {
  const slash = arg.indexOf('/');
  const scopeEnv = slash >= 0 ? arg.slice(0, slash) : env;
  const wanted = slash >= 0 ? arg.slice(slash + 1) : arg;
  if (scopeEnv !== undefined && !ENVIRONMENT_NAME.test(scopeEnv)) throw new SnapshotError(`"${scopeEnv}" is not an environment name`);
  if (env !== undefined && scopeEnv !== env) {
    throw new SnapshotError(`snapshot "${arg}" belongs to environment "${scopeEnv}", not "${env}"`);
  }
  const refs = listSnapshotRefs(dir, scopeEnv);
  const where = scopeEnv !== undefined ? `${join(dir, scopeEnv)}` : dir;
  if (refs.length === 0) throw new SnapshotError(`no snapshots in ${where}`);
  if (wanted === 'latest') {
    return refs.reduce((a, b) => (b.id > a.id || (b.id === a.id && b.env > a.env) ? b : a));
  }
  if (wanted === '') throw new SnapshotError('empty snapshot id');
  const exact = refs.filter((r) => r.id === wanted);
  const matches = exact.length > 0 ? exact : refs.filter((r) => r.id.startsWith(wanted));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new SnapshotError(`no snapshot "${wanted}" in ${where} (newest: ${refs[refs.length - 1]!.id}; see mftops snapshot list)`);
  const shown = matches.slice(0, 5).map(describeRef).join(', ');
  throw new SnapshotError(`snapshot "${wanted}" is ambiguous: ${matches.length} match (${shown}${matches.length > 5 ? ', …' : ''}); give more of the id`);
}

/** `snapshot.json` of one snapshot, checked for shape. */
export function readManifest(dir: string, ref: SnapshotRef): SnapshotManifest {
  const path = join(snapshotPath(dir, ref), MANIFEST_FILE);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new SnapshotIntegrityError(
      `snapshot ${describeRef(ref)}: ${MANIFEST_FILE} ${code ? `cannot be read (${code})` : 'is not valid JSON'}`,
      MANIFEST_FILE,
    );
  }
  const problem = checkManifestShape(raw);
  if (problem) throw new SnapshotIntegrityError(`snapshot ${describeRef(ref)}: ${MANIFEST_FILE}: ${problem}`, MANIFEST_FILE);
  return raw as SnapshotManifest;
}

/**
 * Check a stored snapshot as loadSnapshot does, with the same errors, but streaming the export
 * from disk (decrypting it on the way, the tag checked before anything is answered) instead of
 * holding it; `arg` as for resolveSnapshotId.
 */
export async function verifySnapshot(dir: string, arg: string, options: ReadOptions = {}): Promise<VerifiedSnapshot> {
  const ref = resolveSnapshotId(dir, arg, options.env);
  const { manifest, folder, where, key } = openSnapshot(dir, ref, options.processEnv ?? process.env);
  if (manifest.automation) await checkStoredExport(folder, manifest.automation, key, where);
  readFolders(folder, manifest, key, where);
  readAccounts(folder, manifest, key, where);
  const files: SnapshotFile[] = [];
  if (manifest.automation) files.push(pickFile(manifest.automation));
  if (manifest.transfer) files.push(pickFile(manifest.transfer));
  if (manifest.transfer?.accounts) files.push(pickFile(manifest.transfer.accounts));
  return { snapshot: toInfo(manifest, folder), files };
}

/** A snapshot's manifest, folder, name in messages and key (checked against the manifest). */
export function openSnapshot(
  dir: string,
  ref: SnapshotRef,
  processEnv: NodeJS.ProcessEnv,
): { manifest: SnapshotManifest; folder: string; where: string; key: SnapshotKey | undefined } {
  const manifest = readManifest(dir, ref);
  const where = `snapshot ${describeRef(ref)}`;
  return { manifest, folder: snapshotPath(dir, ref), where, key: manifest.encryption ? keyFor(manifest, where, processEnv) : undefined };
}

/** `transfer-folders.json` read and checked against the manifest ([] when the snapshot has none). */
export function readFolders(folder: string, manifest: SnapshotManifest, key: SnapshotKey | undefined, where: string): SavedFolder[] {
  if (!manifest.transfer) return [];
  const bytes = readChecked(folder, manifest.transfer, FOLDERS_FILE, key, where);
  const parsed = parseSavedFolders(bytes);
  if (typeof parsed === 'string') throw new SnapshotIntegrityError(`${where}: ${manifest.transfer.file}: ${parsed}`, manifest.transfer.file);
  return [...parsed.folders];
}

/** `transfer-accounts.json` read and checked against the manifest (undefined when the snapshot has none: older ones). */
export function readAccounts(folder: string, manifest: SnapshotManifest, key: SnapshotKey | undefined, where: string): SavedAccounts | undefined {
  const file = manifest.transfer?.accounts;
  if (!file) return undefined;
  const parsed = parseSavedAccounts(readChecked(folder, file, ACCOUNTS_FILE, key, where));
  if (typeof parsed === 'string') throw new SnapshotIntegrityError(`${where}: ${file.file}: ${parsed}`, file.file);
  return parsed;
}

/**
 * Delete the oldest snapshots of `env` beyond the newest `keep` (never one in `protect`).
 * Answers the ids it deleted.
 */
export function pruneSnapshots(dir: string, env: string, keep: number, protect: readonly string[] = []): string[] {
  if (!Number.isInteger(keep) || keep < 1) throw new SnapshotError(`snapshots.keep must be a whole number of at least 1, not ${keep}`);
  const refs = listSnapshotRefs(dir, env);
  const doomed = refs.slice(0, Math.max(0, refs.length - keep)).filter((r) => !protect.includes(r.id));
  for (const ref of doomed) rmSync(snapshotPath(dir, ref), { recursive: true, force: true });
  return doomed.map((r) => r.id);
}

export function toInfo(m: SnapshotManifest, path: string): SnapshotInfo {
  const a = m.automation;
  const t = m.transfer;
  return {
    env: m.environment,
    id: m.id,
    path,
    createdAt: m.createdAt,
    services: [...(a ? (['automation'] as const) : []), ...(t ? (['transfer'] as const) : [])],
    ...(a ? { bytes: a.bytes, sha256: a.sha256, taskCount: a.taskCount, serverUrl: a.url, ...withDefined({ serverVersion: a.serverVersion }) } : {}),
    folderCount: t?.folderCount ?? 0,
    ...withDefined({ transferUrl: t?.url, userCount: t?.accounts?.userCount, groupCount: t?.accounts?.groupCount }),
    encrypted: m.encryption !== undefined,
    toolVersion: m.toolVersion,
    ...withDefined({ note: m.note }),
  };
}

/** `transfer-folders.json` parsed and checked, or what is wrong with it. */
export function parseSavedFolders(bytes: Buffer): SavedFolders | string {
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.toString('utf8'));
  } catch {
    return 'not valid JSON';
  }
  if (!isRecord(raw) || !Array.isArray(raw.folders)) return 'expected an object with a "folders" list';
  for (const [i, f] of raw.folders.entries()) {
    if (!isRecord(f) || typeof f.path !== 'string' || !(f.id === null || typeof f.id === 'string') || !Array.isArray(f.entries)) {
      return `folders[${i}] must have path, id and entries`;
    }
    for (const e of f.entries) {
      if (!isRecord(e) || typeof e.type !== 'string' || typeof e.id !== 'string' || !isRecord(e.permissions)) {
        return `folders[${i}] (${f.path}) has an entry without type, id and permissions`;
      }
    }
  }
  return raw as unknown as SavedFolders;
}

export function sha256Hex(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** One file of a snapshot, decrypted, checked against the manifest's size and sha256. */
export function readChecked(folder: string, file: SnapshotFile, plainName: string, key: SnapshotKey | undefined, where: string): Buffer {
  checkFileName(file, plainName, key, where);
  let data: Buffer;
  try {
    data = readFileSync(join(folder, file.file));
  } catch (err) {
    throw unreadable(file, err, where);
  }
  const plain = key ? decryptBuffer(key, data, plainName, where) : data;
  checkContent(file, plain.length, sha256Hex(plain), where);
  return plain;
}

/** readChecked of the export and its XML check, streaming (see verifySnapshot). */
async function checkStoredExport(folder: string, file: SnapshotFile, key: SnapshotKey | undefined, where: string): Promise<void> {
  checkFileName(file, AUTOMATION_FILE, key, where);
  const path = join(folder, file.file);
  let pass: ExportPass;
  try {
    pass = key ? passEncryptedFile(path, key, AUTOMATION_FILE, where) : passPlainFile(path);
  } catch (err) {
    if (err instanceof SnapshotError || typeof (err as NodeJS.ErrnoException).code !== 'string') throw err;
    throw unreadable(file, err, where);
  }
  checkContent(file, pass.bytes, pass.sha256, where);
  // Only when the checker refused: the whole text, for fast-xml-parser's verdict and message.
  const readText = (): string => {
    const data = readFileSync(path);
    return (key ? decryptBuffer(key, data, AUTOMATION_FILE, where) : data).toString('utf8');
  };
  const verdict = await settleExportXml(pass, readText, false);
  if ('problem' in verdict)
    throw new SnapshotIntegrityError(
      `${where}: ${file.file} ${verdict.declaration ? verdict.problem : `is not well-formed XML: ${verdict.problem}`}`,
      file.file,
    );
}

function checkFileName(file: SnapshotFile, plainName: string, key: SnapshotKey | undefined, where: string): void {
  const expected = key ? `${plainName}${ENCRYPTED_SUFFIX}` : plainName;
  if (file.file !== expected) throw new SnapshotIntegrityError(`${where}: ${MANIFEST_FILE} names ${file.file}, expected ${expected}`, MANIFEST_FILE);
}

function unreadable(file: SnapshotFile, err: unknown, where: string): SnapshotIntegrityError {
  return new SnapshotIntegrityError(`${where}: ${file.file} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`, file.file);
}

/** The plaintext's size and sha256 against snapshot.json. */
function checkContent(file: SnapshotFile, bytes: number, sha256: string, where: string): void {
  if (bytes !== file.bytes) {
    throw new SnapshotIntegrityError(
      `${where}: ${file.file} has ${bytes} bytes, ${MANIFEST_FILE} says ${file.bytes}: the file changed after it was saved`,
      file.file,
    );
  }
  if (sha256 !== file.sha256) {
    throw new SnapshotIntegrityError(
      `${where}: ${file.file} does not match its sha256 in ${MANIFEST_FILE} (expected ${file.sha256.slice(0, 12)}…, got ${sha256.slice(0, 12)}…): the file changed after it was saved`,
      file.file,
    );
  }
}

function keyFor(manifest: SnapshotManifest, where: string, processEnv: NodeJS.ProcessEnv): SnapshotKey {
  const key = readSnapshotKey(processEnv);
  if (!key) throw new SnapshotError(`${where} is encrypted: set ${SNAPSHOT_KEY_VARIABLE} to the key it was saved with`);
  if (key.check !== manifest.encryption?.keyCheck) throw new SnapshotError(`${where} was encrypted with another key than ${SNAPSHOT_KEY_VARIABLE}`);
  return key;
}

function pickFile(f: SnapshotFile): SnapshotFile {
  return { file: f.file, bytes: f.bytes, sha256: f.sha256 };
}

function subfolders(path: string): string[] {
  if (!existsSync(path)) return [];
  try {
    return readdirSync(path, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch (err) {
    throw new SnapshotError(`cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

function checkManifestShape(raw: unknown): string | undefined {
  if (!isRecord(raw)) return 'expected a JSON object';
  if (!READABLE_FORMAT_VERSIONS.some((v) => v === raw.formatVersion)) {
    return `unsupported formatVersion ${JSON.stringify(raw.formatVersion)} (this mftops reads ${READABLE_FORMAT_VERSIONS.join(' and ')})`;
  }
  for (const k of ['id', 'environment', 'createdAt', 'toolVersion'] as const) if (typeof raw[k] !== 'string') return `missing ${k}`;
  const fileProblem = (f: unknown, name: string): string | undefined =>
    isRecord(f) && typeof f.file === 'string' && typeof f.bytes === 'number' && typeof f.sha256 === 'string' && /^[0-9a-f]{64}$/.test(f.sha256)
      ? undefined
      : `${name} must have file, bytes and sha256`;
  // Format 1 always holds the export; format 2 at least one part.
  if (raw.formatVersion === 1 && raw.automation === undefined) return 'missing automation';
  if (raw.automation === undefined && raw.transfer === undefined) return 'holds neither an automation export nor transfer folders';
  if (raw.automation !== undefined) {
    const a = raw.automation;
    const p =
      fileProblem(a, 'automation') ??
      (isRecord(a) && typeof a.url === 'string' && typeof a.taskCount === 'number' ? undefined : 'automation must have url and taskCount');
    if (p) return p;
  }
  if (raw.transfer !== undefined) {
    const t = raw.transfer;
    const q = fileProblem(t, 'transfer') ?? (isRecord(t) && typeof t.folderCount === 'number' ? undefined : 'transfer must have folderCount');
    if (q) return q;
    const accounts = isRecord(t) ? t.accounts : undefined;
    if (accounts !== undefined) {
      const r =
        fileProblem(accounts, 'transfer.accounts') ??
        (isRecord(accounts) && typeof accounts.userCount === 'number' && typeof accounts.groupCount === 'number'
          ? undefined
          : 'transfer.accounts must have userCount and groupCount');
      if (r) return r;
    }
  }
  if (raw.encryption !== undefined) {
    const e = raw.encryption;
    if (!isRecord(e) || e.algorithm !== 'aes-256-gcm' || typeof e.keyCheck !== 'string') return 'encryption must have algorithm aes-256-gcm and keyCheck';
  }
  return undefined;
}
