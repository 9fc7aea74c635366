import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { APPLY_ENV, applyWorkdir } from '../apply/helpers.js';
import { countTokenCalls, listWrites } from '../helpers/emulator-test-api.js';
import { hasStackTrace, runCli } from '../helpers/run-cli.js';
import { startSeededEmulator } from '../integration/helpers.js';

/**
 * Bad input at the edges of the CLI: each case exits 1 with a message that says what is wrong,
 * and sends no request at all (the emulator's request log stays empty) — but for plan, drift and
 * apply of 50 manifest files or more, which read while they load (issue 29): they write nothing
 * and revoke every token they were granted.
 */
const CORPUS = new URL('../fixtures/invalid/', import.meta.url).pathname;
const EXPECTED = (JSON.parse(readFileSync(join(CORPUS, 'expected.json'), 'utf8')) as { cases: Record<string, { code: string; line: number }> }).cases;

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());
beforeEach(() => emulator.resetRequestLog());

function expectRefusedOffline(r: { code: number | null; stdout: string; stderr: string }, message: RegExp): void {
  expect(r.code).toBe(1);
  expect(r.stdout + r.stderr).toMatch(message);
  expect(hasStackTrace(r.stderr)).toBe(false);
  expect(r.stderr).not.toMatch(/internal error/);
  expect(emulator.requestLog()).toEqual([]);
}

/** As expectRefusedOffline, for a run that may have read while its manifests loaded: no write, every token revoked. */
function expectRefusedWithoutWrites(r: { code: number | null; stdout: string; stderr: string }, message: RegExp): void {
  expect(r.code).toBe(1);
  expect(r.stdout + r.stderr).toMatch(message);
  expect(hasStackTrace(r.stderr)).toBe(false);
  expect(r.stderr).not.toMatch(/internal error/);
  expect(listWrites(emulator)).toEqual([]);
  for (const [service, { granted, revoked }] of Object.entries(countTokenCalls(emulator))) expect(revoked, service).toBeGreaterThanOrEqual(granted);
}

describe('plan files', () => {
  it('a corrupt (truncated), a foreign and a hand-edited plan file are refused before any request', async () => {
    const dir = applyWorkdir(emulator);
    const saved = await runCli(['plan', '--out', 'plan.json', '-q'], { cwd: dir, env: APPLY_ENV });
    expect(saved.code).toBe(0);
    const text = readFileSync(join(dir, 'plan.json'), 'utf8');
    writeFileSync(join(dir, 'truncated.json'), text.slice(0, text.length / 2));
    writeFileSync(join(dir, 'foreign.json'), JSON.stringify({ name: 'some-package', version: '1.0.0' }));
    // The reviewer's plan said "update"; someone edits a description in the saved file.
    writeFileSync(join(dir, 'edited.json'), text.replace('(managed by apply tests)', '(edited by hand)'));
    expect(readFileSync(join(dir, 'edited.json'), 'utf8')).not.toBe(text);
    emulator.resetRequestLog();

    expectRefusedOffline(
      await runCli(['apply', 'truncated.json'], { cwd: dir, env: APPLY_ENV }),
      /^mftops: error: .*truncated\.json is not a plan file: it is not JSON/m,
    );
    expectRefusedOffline(
      await runCli(['apply', 'foreign.json'], { cwd: dir, env: APPLY_ENV }),
      /^mftops: error: .*foreign\.json is not a plan file: no formatVersion/m,
    );
    expectRefusedOffline(
      await runCli(['apply', 'edited.json'], { cwd: dir, env: APPLY_ENV }),
      /^mftops: error: .*edited\.json was changed after mftops wrote it \(checksum mismatch\): make the plan again instead of editing it/m,
    );
  });

  it('a plan file of format 1, saved by an older mftops, is refused in one line that says to plan again', async () => {
    const dir = applyWorkdir(emulator);
    // What mftops wrote before format 2: the plan's fields at the top level, reasons as prose.
    const v1 = {
      formatVersion: 1,
      toolVersion: '0.1.0',
      createdAt: '2026-11-22T00:00:00.000Z',
      environment: 'lab',
      servers: {},
      manifestDigest: `sha256:${'0'.repeat(64)}`,
      changes: [],
      summary: { create: 0, update: 0, replace: 0, delete: 0, 'no-op': 0, blocked: 0 },
    };
    writeFileSync(join(dir, 'old.json'), `${JSON.stringify({ ...v1, checksum: `sha256:${'0'.repeat(64)}` }, null, 2)}\n`);
    const r = await runCli(['apply', 'old.json'], { cwd: dir, env: APPLY_ENV });
    expectRefusedOffline(
      r,
      /^mftops: error: .*old\.json is a plan file of format 1, made by an older mftops; this mftops reads format 3 only: make the plan again with mftops plan --out$/m,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('snapshots', () => {
  it('an altered snapshot (same size, one byte changed) is refused by restore before any request, naming the file', async () => {
    const dir = applyWorkdir(emulator);
    expect((await runCli(['snapshot', 'save', '-q'], { cwd: dir, env: APPLY_ENV })).code).toBe(0);
    const root = join(dir, '.mftops', 'snapshots', 'lab');
    const [id] = readdirSync(root).filter((n) => n !== 'apply.lock');
    const xml = join(root, id!, 'automation-config.xml');
    const before = readFileSync(xml, 'utf8');
    const after = before.replace('Finance', 'Finanze');
    expect(after).not.toBe(before);
    expect(Buffer.byteLength(after)).toBe(Buffer.byteLength(before));
    writeFileSync(xml, after);
    emulator.resetRequestLog();
    const restore = await runCli(['snapshot', 'restore', 'latest', '--auto-approve'], { cwd: dir, env: APPLY_ENV });
    expectRefusedOffline(restore, /^mftops: error: .*automation-config\.xml.*(sha256|changed)/m);
    const verify = await runCli(['snapshot', 'verify', 'latest'], { cwd: dir, env: APPLY_ENV });
    expect(verify.code).toBe(1);
    expect(verify.stdout + verify.stderr).toMatch(/automation-config\.xml/);
  });
});

describe('configuration', () => {
  it('an unknown key in mftops.yaml is named with its line; a missing variable is named; nothing is sent', async () => {
    const dir = applyWorkdir(emulator);
    const config = readFileSync(join(dir, 'mftops.yaml'), 'utf8');
    writeFileSync(join(dir, 'mftops.yaml'), config.replace('    prune:', '    prnue: [Task]\n    prune:'));
    const unknown = await runCli(['plan'], { cwd: dir, env: APPLY_ENV });
    expectRefusedOffline(unknown, /mftops\.yaml:\d+:\d+: .*unknown key `prnue`|unknown key `prnue`/);

    writeFileSync(join(dir, 'mftops.yaml'), config);
    const { MFT_TRANSFER_PASSWORD: _dropped, ...withoutPassword } = APPLY_ENV;
    for (const command of [['plan'], ['apply', '--auto-approve']]) {
      const missing = await runCli(command, { cwd: dir, env: withoutPassword });
      expectRefusedOffline(missing, /^mftops\.yaml:\d+:\d+: error MF508: .*MFT_TRANSFER_PASSWORD is not set$/m);
    }
  });

  it('an MFTOPS_HTTP_TIMEOUT_MS that is not a number of milliseconds is refused by name', async () => {
    const dir = applyWorkdir(emulator);
    const r = await runCli(['plan'], { cwd: dir, env: { ...APPLY_ENV, MFTOPS_HTTP_TIMEOUT_MS: '5s' } });
    expectRefusedOffline(r, /^mftops: error: MFTOPS_HTTP_TIMEOUT_MS must be a whole number of milliseconds from 100 to 600000, not "5s"/m);
  });
});

describe('the invalid corpus', () => {
  const files = readdirSync(CORPUS).filter((f) => f.endsWith('.yaml'));

  it('has an expected diagnostic for every file', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((f) => EXPECTED[f] === undefined)).toEqual([]);
  });

  for (const command of [['plan'], ['apply', '--auto-approve']] as const) {
    it(`mftops ${command[0]} names every file's mistake (code and line) and sends no write`, async () => {
      const dir = applyWorkdir(emulator, {
        manifests: Object.fromEntries(files.map((f) => [`manifests/${f}`, readFileSync(join(CORPUS, f))])) as unknown as Record<string, string>,
      });
      const r = await runCli([...command, 'manifests'], { cwd: dir, env: APPLY_ENV });
      expectRefusedWithoutWrites(r, /error MF\d{3}/);
      const missing = files.filter((f) => {
        const e = EXPECTED[f]!;
        return !new RegExp(`manifests/${f.replace(/\./g, '\\.')}:${e.line}:\\d+: error ${e.code}`).test(r.stderr);
      });
      expect(missing).toEqual([]);
    });
  }
});
