import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkConfigXml,
  inspectConfigXml,
  loadSnapshot,
  saveSnapshot,
  SnapshotIntegrityError,
  verifySnapshot,
  type SaveSnapshotOptions,
  type SnapshotAutomationSource,
  type SnapshotManifest,
} from '../../src/snapshot/index.js';
import { checkXmlBytes } from '../../src/snapshot/xml-checker.js';
import { testdir } from '../helpers/testdir.js';
import { KEY_HEX, snapshotFolder } from './helpers.js';

/*
 * Save and verify stream the export through the checker of xml-checker.ts and fall back to
 * fast-xml-parser (inspectConfigXml / checkConfigXml, the previous check) whenever the checker
 * refuses: the verdicts, task counts and messages must be the ones the previous code gave.
 */

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** An automation source that serves fixed bytes, as the client would store them. */
function serving(body: Buffer): SnapshotAutomationSource {
  return {
    exportConfig: async (dest: string) => {
      writeFileSync(dest, body, { mode: 0o600 });
      return { bytes: body.length, sha256: sha256(body) };
    },
  };
}

function save(dir: string, body: Buffer, extra: Partial<SaveSnapshotOptions> = {}) {
  return saveSnapshot({ automation: serving(body), automationUrl: 'http://127.0.0.1:1/automation', env: 'lab', dir, keep: 30, processEnv: {}, ...extra });
}

/** Well-formed, with processing instructions: the checker leaves it to fast-xml-parser. (A DOCTYPE is refused outright, issue 23.) */
const UNUSUAL = Buffer.from('<?xml version="1.0"?>\n<?keep me?>\n<Config><?keep me?><Tasks><Task ID="1"/><Task ID="2"/><Task ID="3"/></Tasks></Config>\n');

/** A large export in the emulator's shape: 20,000 tasks, about 6 MB. */
function largeExport(tasks: number): Buffer {
  const parts = [
    '<?xml version="1.0" encoding="UTF-8"?>\n<Config Version="1">\n  <Hosts>\n    <SSHFTP ID="1" Name="h" DefPassword="p&amp;w"/>\n  </Hosts>\n  <Tasks>',
  ];
  for (let i = 0; i < tasks; i++) {
    parts.push(
      `\n    <Task ID="${i}" Name="Task ${i} é" Active="1">\n      <Group>G</Group>\n      <Info Description="line&#10;two &lt;x&gt;" Notes=""/>\n      <Source ID="1" HostID="1" Path="D:\\in\\${i}" FileMask="*"/>\n    </Task>`,
    );
  }
  parts.push('\n  </Tasks>\n</Config>\n');
  return Buffer.from(parts.join(''));
}

describe('save and verify through the streaming check', () => {
  it('record the task count fast-xml-parser gives, for a large export and for one the checker leaves to fast-xml-parser', async () => {
    const dir = testdir({});
    for (const body of [largeExport(20_000), UNUSUAL]) {
      const text = body.toString('utf8');
      const expected = inspectConfigXml(text);
      expect(expected).toHaveProperty('taskCount');
      const info = await save(dir, body);
      expect(info.taskCount).toBe((expected as { taskCount: number }).taskCount);
      expect(info.sha256).toBe(sha256(body));
      expect((await verifySnapshot(dir, info.id)).snapshot.taskCount).toBe(info.taskCount);
      expect(loadSnapshot(dir, { env: 'lab', id: info.id }).automationXml!.equals(body)).toBe(true);
    }
    expect(checkXmlBytes(UNUSUAL).ok).toBe(false);
  });

  it('refuse a broken export with the message fast-xml-parser gives', async () => {
    const dir = testdir({});
    for (const text of ['<Config><Tasks>\n<Task></Tasks>\n</Config>', '<Config/><Extra/>', '<Config a="1" a="2"/>', '\n\n<Config>']) {
      const problem = checkConfigXml(text);
      expect(problem).toBeDefined();
      const err = await save(dir, Buffer.from(text), { now: new Date('2026-01-01T00:00:00.000Z') }).catch((e: unknown) => e);
      expect((err as Error).message).toBe(`snapshot not saved: the export from http://127.0.0.1:1/automation is not well-formed XML: ${problem}`);
    }
  });

  it('verify finds a stored export that is not well-formed even when snapshot.json matches it, with fast-xml-parser`s message', async () => {
    const dir = testdir({});
    const info = await save(dir, largeExport(10));
    const folder = snapshotFolder(dir, info.id);
    const broken = Buffer.from('<Config><Tasks><Task/></Tasks>\n<Task>');
    writeFileSync(join(folder, 'automation-config.xml'), broken);
    const manifest = JSON.parse(readFileSync(join(folder, 'snapshot.json'), 'utf8')) as SnapshotManifest;
    writeFileSync(
      join(folder, 'snapshot.json'),
      JSON.stringify({ ...manifest, automation: { ...manifest.automation, bytes: broken.length, sha256: sha256(broken) } }),
    );
    const err = await verifySnapshot(dir, info.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SnapshotIntegrityError);
    expect((err as Error).message).toBe(`snapshot lab/${info.id}: automation-config.xml is not well-formed XML: ${checkConfigXml(broken.toString('utf8'))}`);
    expect(() => loadSnapshot(dir, { env: 'lab', id: info.id })).toThrow((err as Error).message);
  });

  it('verify decrypts a large encrypted export in pieces and answers only after the tag checked out', async () => {
    const dir = testdir({});
    const keyEnv = { MFTOPS_SNAPSHOT_KEY: KEY_HEX };
    const body = largeExport(20_000);
    const info = await save(dir, body, { processEnv: keyEnv });
    expect((await verifySnapshot(dir, info.id, { processEnv: keyEnv })).snapshot.bytes).toBe(body.length);
    expect(loadSnapshot(dir, { env: 'lab', id: info.id }, keyEnv).automationXml!.equals(body)).toBe(true);

    const enc = join(snapshotFolder(dir, info.id), 'automation-config.xml.enc');
    const good = readFileSync(enc);
    // One byte changed at the very start of the ciphertext: every later piece decrypts fine.
    const changed = Buffer.from(good);
    changed[21] = changed[21]! ^ 0x01;
    writeFileSync(enc, changed);
    const err = await verifySnapshot(dir, info.id, { processEnv: keyEnv }).catch((e: unknown) => e);
    expect((err as SnapshotIntegrityError).file).toBe('automation-config.xml.enc');
    expect((err as Error).message).toMatch(/automation-config\.xml\.enc fails authentication: the file changed after it was saved$/);

    for (const truncated of [good.subarray(0, 30), good.subarray(0, good.length - 1), Buffer.alloc(0)]) {
      writeFileSync(enc, truncated);
      const e = await verifySnapshot(dir, info.id, { processEnv: keyEnv }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(SnapshotIntegrityError);
      expect((e as Error).message).toMatch(/automation-config\.xml\.enc (is not an mftops encrypted file \(truncated or replaced\)|fails authentication)/);
    }
    writeFileSync(enc, good);
    expect((await verifySnapshot(dir, info.id, { processEnv: keyEnv })).files).toHaveLength(1);
  });

  it('verify names an export file that cannot be read', async () => {
    const dir = testdir({});
    const info = await save(dir, largeExport(3));
    const xml = join(snapshotFolder(dir, info.id), 'automation-config.xml');
    rmSync(xml);
    await expect(verifySnapshot(dir, info.id)).rejects.toThrow(`snapshot lab/${info.id}: automation-config.xml cannot be read (ENOENT)`);
  });
});
