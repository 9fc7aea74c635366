import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** `npm run demo` (after the build): its exit code, stdout and stderr. */
function runDemo(args: readonly string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, ['dist/cli/demo.js', ...args], {
      cwd: root,
      env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}

/** The output of one narrated step: from its `==> N/6` line to the next. */
function step(stdout: string, n: number): string {
  const start = stdout.indexOf(`\n==> ${n}/6 `);
  expect(start).toBeGreaterThan(0);
  const end = stdout.indexOf('\n==> ', start + 1);
  return stdout.slice(start, end < 0 ? undefined : end);
}

/** No warning of any kind: no diagnostic warning, no count of them, no `warn` policy violation. */
const WARNING = /\bwarn(ing)?s?\b/i;

describe('npm run demo', () => {
  it('narrates the whole loop on the example estate in about 150 lines, without a warning, and ends with the next step', async () => {
    const r = await runDemo();
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(100);
    expect(lines.length).toBeLessThanOrEqual(180);
    expect(lines.filter((l) => WARNING.test(l))).toEqual([]);
    // Six narrated steps, in order, each running the CLI as a user types it (one environment: no --env).
    expect(lines.filter((l) => /^==> \d\/6 /.test(l)).map((l) => l.split(':')[0])).toEqual([
      '==> 1/6 status',
      '==> 2/6 plan',
      '==> 3/6 apply',
      "==> 4/6 a change behind git's back",
      '==> 5/6 drift',
      '==> 6/6 restore',
    ]);
    expect(lines.filter((l) => l.startsWith('$ mftops ')).map((l) => l.replace(/restore \S+/, 'restore ID'))).toEqual([
      '$ mftops status',
      '$ mftops plan --out demo.plan',
      '$ mftops apply demo.plan',
      '$ mftops drift',
      '$ mftops snapshot restore ID --auto-approve',
    ]);

    expect(step(r.stdout, 1)).toContain('All 2 services reachable.');
    // The plan: what to look at first (policies, who gains or loses access), the rest counted, and its counts.
    const plan = step(r.stdout, 2);
    expect(plan).toContain('Policy checks: 7 policies, no violations.');
    expect(plan).toMatch(/^Access changes: \d+ users gain access, 1 loses access\.$/m);
    expect(plan).toMatch(/^ {4}… \d+ more lines: every changed object field by field; `mftops show demo\.plan` prints the whole plan …$/m);
    expect(plan).toContain('\n! Task/Legacy EDI router is blocked\n');
    expect(plan).toMatch(/^Plan: [1-9]\d* to create, [1-9]\d* to update, 0 to replace, 0 to delete, 1 blocked\./m);

    // Apply: the saved plan, a snapshot first, verified after.
    const apply = step(r.stdout, 3);
    expect(apply).toMatch(/^Apply complete for environment "production": ([1-9]\d*) applied, 0 failed, 1 skipped\.$/m);
    expect(apply).toMatch(/^Verified: [1-9]\d* applied changes re-planned from the manifests, all in sync\.$/m);
    const snapshot = /^Snapshot: .*\/production\/(\S+)$/m.exec(apply)?.[1];
    expect(snapshot).toBeDefined();

    // Another user edits a task through the REST API; drift names that user, from the audit log.
    expect(step(r.stdout, 4)).toMatch(/^PUT \/automation\/api\/v1\/tasks\/\d+ as operator: Frequency\.Interval\[0\] 02:00 → 04:30, HTTP 200$/m);
    const drift = step(r.stdout, 5);
    expect(drift).toContain('~ Task/Payroll to bank differs from its manifest\n    last change: operator, ');
    expect(drift).toContain('Schedules.Schedule[0].Frequency.Interval[0].StartTime: "02:00" → "04:30"');
    expect(drift).toMatch(/^Drift: 2 objects differ, 0 unmanaged\.$/m);

    // Restore of the snapshot apply took, read back and compared.
    const restore = step(r.stdout, 6);
    expect(restore).toContain(`$ mftops snapshot restore ${snapshot!} --auto-approve`);
    expect(restore).toMatch(/^Saved the state before the restore as production\/\S+ /m);
    expect(restore).toContain(`Verified: read back, the restored parts match production/${snapshot!}.`);

    expect(lines.at(-2)).toMatch(/^Demo finished: \d+ requests to the emulator, [1-9]\d* of them writes/);
    expect(lines.at(-1)).toBe(
      'Next, in your own repository: `npx mftops init` (mftops.yaml, manifests/, the workflows), then `npx mftops import` to write manifests of what your servers hold.',
    );
    expect(r.stdout).not.toContain('SEEDSECRET');
    expect(r.stdout).not.toContain('Pa55!seed');
    expect(r.stdout).not.toMatch(/demo-acme-sftp-secret|demo-audit-share-secret/);
  });

  it('--environments adds staging and the promotion view, still without a warning', async () => {
    const r = await runDemo(['--environments']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(260);
    expect(lines.filter((l) => WARNING.test(l))).toEqual([]);
    // Two environments in mftops.yaml: the loop names production.
    expect(r.stdout).toContain('$ mftops apply --env production demo.plan\n');
    const promotion = r.stdout.slice(r.stdout.indexOf('$ mftops diff-env staging production --offline\n'));
    expect(promotion).toContain('~ Task/Acme outbound: differs in 3 fields');
    expect(promotion).toContain('< FolderPermissions/Distribution/Acme/Test: only in staging');
    expect(promotion).toMatch(/^Environments: 1 only in staging, 0 only in production, 3 declared differently/m);
    expect(lines.at(-1)).toMatch(/^Next, in your own repository: `npx mftops init`/);
  });

  it('refuses an unknown option in one line', async () => {
    const r = await runDemo(['--environment']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('demo: unknown option --environment; the only option is --environments (adds staging and the promotion view)\n');
  });
});
