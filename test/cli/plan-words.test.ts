import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';
import { runCli } from '../helpers/run-cli.js';
import { copyExampleManifests, emulatorWorkdir } from '../helpers/example-workdir.js';

const ENV = {
  MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password,
  MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password,
  ACME_SFTP_PASSWORD: 'acme-sftp-words-test',
  PAYROLL_API_KEY: 'payroll-words-test',
};

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());

/**
 * The example estate, with "Payroll to bank" (on the seed's date list 303001, "Bank Holidays
 * 2026") moved from 02:00 to 03:30: its schedule line is then described from what apply sends,
 * where the date list is an id.
 */
function workdir(): string {
  const dir = emulatorWorkdir(emulator);
  copyExampleManifests(dir, 'audit-share-words-test');
  const finance = join(dir, 'manifests/tasks/finance.yaml');
  const text = readFileSync(finance, 'utf8');
  const moved = text.replace('Interval: [{ StartTime: "02:00", EndTime: "02:00" }]', 'Interval: [{ StartTime: "03:30", EndTime: "03:30" }]');
  expect(moved).not.toBe(text);
  writeFileSync(finance, moved);
  return dir;
}

/** The lines of one object's block in a text plan. */
function block(text: string, address: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.includes(` ${address} `));
  expect(start, address).toBeGreaterThanOrEqual(0);
  const end = lines.findIndex((l, i) => i > start && l.trim() === '');
  return lines.slice(start, end < 0 ? undefined : end);
}

describe('mftops plan says values in words', () => {
  it('text: codes with their meaning, flags as true/false, and the date list of a schedule line by name', async () => {
    const r = await runCli(['plan'], { cwd: workdir(), env: ENV });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(block(r.stdout, 'Task/Bank statements in')).toContain('    ~ steps[0].Source.DeleteOrig: 1 (delete) → 2 (rename or move)');
    expect(block(r.stdout, 'Task/Bank statements in')).toContain('    + steps[0].Source.DelRename: true');
    expect(block(r.stdout, 'Task/Payroll to bank')).toContain(
      '    # Schedules: Weekdays (Mon–Fri) at 02:00, with date list Bank Holidays 2026 → Weekdays (Mon–Fri) at 03:30, with date list Bank Holidays 2026',
    );
    expect(block(r.stdout, 'Task/Month-end report')).toContain('    + Active: true');
    expect(r.stdout).not.toContain('date list id');
  });

  it('markdown: the same words in the diff and the schedule line', async () => {
    const r = await runCli(['plan', '--format', 'markdown'], { cwd: workdir(), env: ENV });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('- steps[0].Source.DeleteOrig: 1 (delete)\n+ steps[0].Source.DeleteOrig: 2 (rename or move)');
    expect(r.stdout).toContain(
      '**Schedules in words:** Weekdays (Mon–Fri) at 02:00, with date list Bank Holidays 2026 → Weekdays (Mon–Fri) at 03:30, with date list Bank Holidays 2026',
    );
  });

  it('json: the raw values stay, the words are beside them', async () => {
    const r = await runCli(['plan', '--format', 'json'], { cwd: workdir(), env: ENV });
    expect(r.code).toBe(0);
    const view = JSON.parse(r.stdout) as { changes: { address: string; fields: { path: string }[] }[] };
    const fields = view.changes.find((c) => c.address === 'Task/Bank statements in')!.fields;
    expect(fields.find((f) => f.path === 'steps[0].Source.DeleteOrig')).toEqual({
      path: 'steps[0].Source.DeleteOrig',
      before: 1,
      after: 2,
      words: { form: 'meaning', before: 'delete', after: 'rename or move' },
    });
    expect(fields.find((f) => f.path === 'steps[0].Source.DelRename')).toEqual({
      path: 'steps[0].Source.DelRename',
      after: 1,
      words: { form: 'flag', after: 'true' },
    });
  });
});
