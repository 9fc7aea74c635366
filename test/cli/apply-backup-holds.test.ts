import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator, Variants } from '../../src/emulator/index.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { hasStackTrace, runCli } from '../helpers/run-cli.js';
import { APPLY_ENV, applyWorkdir, writesOf } from '../apply/helpers.js';

/**
 * Issue 23 findings 4 and 9: an export that is not a backup of the server (empty right after the
 * plan read its tasks; behind a DOCTYPE with an entity bomb or an external entity) stops apply
 * before its first write, with one line that says what is wrong, and leaves no snapshot.
 */

const ALLOW = ['--auto-approve', '--allow-delete', '--allow-replace'];

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function applyAgainst(reading: Variants['automation.export']): Promise<{ code: number | null; out: string; writes: string[]; snapshots: string[] }> {
  emulator = await startSeededEmulator({ variants: { 'automation.export': reading } });
  const dir = applyWorkdir(emulator);
  emulator.resetRequestLog();
  const r = await runCli(['apply', ...ALLOW], { cwd: dir, env: APPLY_ENV, timeoutMs: 60_000 });
  const envDir = join(dir, '.mftops/snapshots/lab');
  const snapshots = existsSync(envDir) ? readdirSync(envDir).filter((n) => n !== 'apply.lock') : [];
  const out = `${r.stdout}\n${r.stderr}`;
  expect(hasStackTrace(out), out).toBe(false);
  return { code: r.code, out, writes: writesOf(emulator), snapshots };
}

describe('apply refuses an export that is not a backup of the server', () => {
  it('an empty <AutomationConfig></AutomationConfig> right after the plan read the tasks: no write, the tasks it lacks named', async () => {
    const r = await applyAgainst('empty');
    expect(r.code).toBe(1);
    expect(r.writes).toEqual([]);
    // The three tasks this apply changes are named first; the other five are counted.
    expect(r.out).toMatch(
      /snapshot not saved: the automation export holds 0 tasks but the server lists 8 \(missing: (?=[^;]*Payroll to bank \(ID \d+\))(?=[^;]*Acme inbound)(?=[^;]*Nightly cleanup)[^;]*, … 3 more\)/,
    );
    expect(r.out).toContain('the automation export holds 0 resource-group ACLs but the server lists');
    expect(r.out).toContain('not a backup of this server; nothing was applied');
    expect(r.out).toContain('Apply stopped before the first write: no verified snapshot.');
    expect(r.snapshots).toEqual([]);
  });

  it("a DOCTYPE with an entity-expansion bomb: refused as the server's answer, no write, no snapshot", async () => {
    const r = await applyAgainst('entityBomb');
    expect(r.code).toBe(1);
    expect(r.writes).toEqual([]);
    expect(r.out).toContain('contains a DOCTYPE/entity declaration, which mftops refuses (server answer, not an mftops bug)');
    expect(r.out).not.toMatch(/internal error|bug in mftops/);
    expect(r.snapshots).toEqual([]);
  });

  it('a DOCTYPE with an external entity: refused as the server\'s answer, not "internal error … a bug in mftops"', async () => {
    const r = await applyAgainst('externalEntity');
    expect(r.code).toBe(1);
    expect(r.writes).toEqual([]);
    expect(r.out).toContain('the automation export from');
    expect(r.out).toContain('contains a DOCTYPE/entity declaration, which mftops refuses (server answer, not an mftops bug)');
    expect(r.out).not.toMatch(/internal error|bug in mftops/);
    expect(r.snapshots).toEqual([]);
  });

  it('the whole export: apply writes and the snapshot holds every task and ACL (the check lets a real backup through)', async () => {
    const r = await applyAgainst('full');
    expect(r.code, r.out).toBe(0);
    expect(r.writes.length).toBeGreaterThan(0);
    expect(r.snapshots).toHaveLength(1);
  });
});
