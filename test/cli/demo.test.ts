import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI_HANG_GUARD_MS } from '../helpers/run-cli.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('npm run demo', () => {
  it('runs status, validate and plan against the built-in emulators of the example estate\'s two environments, then diff-env between them, and exits 0, writing nothing', () => {
    const r = spawnSync(process.execPath, ['dist/cli/demo.js'], { cwd: root, encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' }, timeout: CLI_HANG_GUARD_MS });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('All 2 services reachable.');
    // 24 manifests and the 7 example policies; the policies that read only object are checked on them.
    expect(r.stdout).toContain('31 manifests valid, 2 warnings');
    expect(r.stdout).toContain('examples/manifests/tasks/partners.yaml:25:1: warning MF312: Task/Acme inbound breaks policy `partner-originals-kept`');
    // The plan evaluates every example policy; what they catch on the example estate are warnings.
    expect(r.stdout).toContain('Policy checks: 2 violations of 7 policies (warnings only).');
    expect(r.stdout).toMatch(/^ {2}! warn folder-access-removal: FolderPermissions\/Distribution\/Acme\/Inbound — someone loses all access to this folder/m);
    expect(r.stdout).toMatch(/^ {2}! warn partner-originals-kept: Task\/Globex inbound — /m);
    // The plan of the examples shows creates, updates and the advanced task it cannot change.
    expect(r.stdout).toMatch(/^Plan: [1-9]\d* to create, [1-9]\d* to update, 0 to replace, 0 to delete, 1 blocked\. [1-9]\d* users gain access, [1-9]\d* loses? access\.$/m);
    // Who gains or loses access comes before the per-object diff, group members included (issue 16).
    expect(r.stdout.indexOf('Access changes: ')).toBeGreaterThan(0);
    expect(r.stdout.indexOf('Access changes: ')).toBeLessThan(r.stdout.indexOf('! Task/Legacy EDI router is blocked'));
    expect(r.stdout).toContain('  - alice gains readFiles, writeFiles, listFiles on /Finance/Payroll (via group Finance Team)');
    expect(r.stdout).toContain('  - globex-svc gains notify on /Distribution/Globex/Inbound (via group Globex Partners)');
    // Resource-group ACLs per user too: the automation server lists the user group's members.
    expect(r.stdout).toContain('  - dana gains TaskRun on resource group Finance (via user group Auditors)');
    expect(r.stdout).toContain('! Task/Legacy EDI router is blocked');
    // Values read in words: codes with their meaning, flags as the manifests write them, date lists by name.
    expect(r.stdout).toContain('~ steps[0].Source.DeleteOrig: 1 (delete) → 2 (rename or move)');
    expect(r.stdout).toContain('+ Active: true');
    expect(r.stdout).toContain('# Schedules: Weekdays (Mon–Fri) at 22:30, with date list Bank Holidays 2026, until the first success');
    // Both environments of examples/mftops.yaml, each on its own emulator, each plan naming its environment.
    expect(r.stdout).toMatch(/^\$ mftops plan --config mftops\.yaml --env production --detailed-exitcode\nmftops plan for environment "production": /m);
    expect(r.stdout).toMatch(/^\$ mftops plan --config mftops\.yaml --env staging --detailed-exitcode\nmftops plan for environment "staging": /m);
    expect(r.stdout.match(/^Plan: /gm)).toHaveLength(2);
    // Then the promotion view: staging's partner endpoints and its own folder.
    const promotion = r.stdout.slice(r.stdout.indexOf('$ mftops diff-env staging production --config mftops.yaml\n'));
    expect(promotion).toContain('~ Task/Acme outbound: differs in 3 fields');
    expect(promotion).toContain('< FolderPermissions/Distribution/Acme/Test: only in staging');
    expect(promotion).toMatch(/^Environments: 1 only in staging, 0 only in production, 3 declared differently, /m);
    expect(r.stdout).toMatch(/Demo finished: \d+ requests to the emulators of production and staging, 0 writes\./);
    expect(r.stdout).not.toContain('SEEDSECRET');
    expect(r.stdout).not.toContain('Pa55!seed');
    expect(r.stdout).not.toMatch(/demo-acme-sftp-secret|demo-audit-share-secret/);
  });
});
