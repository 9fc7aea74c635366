import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { emulatorEnvironmentsYaml } from '../../src/emulator/config-for.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ALL_SECRETS, APPLY_ENV, writesOf } from '../apply/helpers.js';
import { runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';
import { startSeededEmulator } from '../helpers/emulator-test-api.js';

/**
 * `mftops diff-env` end to end, through the CLI over HTTP: the example estate's two environments
 * (examples/mftops.yaml: `emulator` and `staging`), each on an emulator of its own seeded with
 * its seed. Read-only: the request logs show reads and token calls only.
 */
const EXAMPLES = fileURLToPath(new URL('../../examples', import.meta.url));

let prod: RunningEmulator;
let staging: RunningEmulator;
beforeAll(async () => {
  prod = await startSeededEmulator();
  staging = await startSeededEmulator({ estate: 'staging' });
});
afterAll(async () => {
  await prod.close();
  await staging.close();
});
beforeEach(() => {
  prod.resetRequestLog();
  staging.resetRequestLog();
});

/** A checkout of the examples with a configuration of both environments pointed at the emulators, as examples/mftops.yaml lays them out. */
function workdir(): string {
  const dir = testdir({});
  cpSync(join(EXAMPLES, 'manifests'), join(dir, 'manifests'), { recursive: true });
  cpSync(join(EXAMPLES, 'staging'), join(dir, 'staging'), { recursive: true });
  const scope = { taskGroups: ['Finance', 'Partners', 'Operations'], folders: ['/Distribution'] };
  writeFileSync(
    join(dir, 'mftops.yaml'),
    emulatorEnvironmentsYaml([
      { environment: 'prod', automationUrl: prod.automationUrl, transferUrl: prod.transferUrl, manifests: ['manifests'], scope },
      {
        environment: 'staging',
        automationUrl: staging.automationUrl,
        transferUrl: staging.transferUrl,
        manifests: ['manifests', 'staging'],
        scope,
      },
    ]),
  );
  return dir;
}

/** The lines of one object's block in the text output. */
function block(stdout: string, head: string): string {
  const start = stdout.indexOf(`${head}\n`);
  expect(start, head).toBeGreaterThanOrEqual(0);
  const end = stdout.indexOf('\n\n', start);
  return stdout.slice(start, end);
}

describe('mftops diff-env A B', () => {
  it('reads both servers without a write and shows per object what differs between the environments, and where a server is not in sync with its own manifests (exit 2)', async () => {
    const r = await runCli(['diff-env', 'prod', 'staging'], { cwd: workdir(), env: APPLY_ENV });
    expect(r.code, r.stderr).toBe(2);
    // Declared differently: host, path and partner account of the Acme push, the Globex schedule.
    expect(block(r.stdout, '~ Task/Acme outbound: differs in 3 fields')).toContain(
      ['    steps[1].Destination.Username', '      prod:    "mft-push"', '      staging: "mft-push-test"'].join('\n'),
    );
    expect(block(r.stdout, '~ Task/Globex outbound: differs in 3 fields')).toContain(
      ['    Schedules.Schedule[0].Days.DayOfWeek', '      prod:    ["Monday", "Wednesday", "Friday"]', '      staging: ["Friday"]'].join('\n'),
    );
    // Only in one environment.
    expect(block(r.stdout, '> FolderPermissions/Distribution/Acme/Test: only in staging')).toContain(
      '    server of staging: not in sync (the plan would create: entries[group Acme Partners], entries[user acme-svc])',
    );
    // Each server against its own environment's manifests: Acme inbound's host matches on both
    // servers (staging's seed has its own host name); only the rename of Acme's originals the
    // manifests ask for (policy partner-originals-kept) is not there yet, on both. The Globex
    // days differ only on staging's server.
    const acmeInbound = block(r.stdout, '~ Task/Acme inbound: differs in 1 field');
    expect(acmeInbound).toContain(
      ['prod', 'staging']
        .map((env) => `    server of ${env}: not in sync (the plan would update: steps[0].Source.DeleteOrig, steps[0].Source.RenameTo)`)
        .join('\n'),
    );
    const globex = block(r.stdout, '~ Task/Globex outbound: differs in 3 fields');
    expect(globex).toMatch(/server of staging: not in sync \(the plan would update: [^)]*Schedules\.Schedule\[0\]\.Days\.DayOfWeek/);
    expect(globex).not.toMatch(/server of prod: [^\n]*DayOfWeek/);
    // Declared alike but not in sync on a server.
    expect(block(r.stdout, '! Task/Legacy EDI router: declared alike')).toContain('    server of prod: not in sync (the plan would be blocked: Info.Notes)');
    expect(r.stdout).toMatch(
      /^Environments: 0 only in prod, 1 only in staging, 3 declared differently, \d+ declared alike but not in sync on a server, \d+ the same\.$/m,
    );
    // Both servers were read, neither written to.
    for (const server of [prod, staging]) {
      expect(server.requestLog().filter((q) => q.method === 'GET').length).toBeGreaterThan(0);
      expect(writesOf(server)).toEqual([]);
    }
    for (const secret of ALL_SECRETS) expect(r.stdout + r.stderr).not.toContain(secret);
  });

  it('--offline compares the manifests only: no request to either server, no credential needed', async () => {
    const r = await runCli(['diff-env', 'prod', 'staging', '--offline'], { cwd: workdir(), env: {} });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toContain('(manifests only: no server read)');
    expect(r.stdout).toContain('~ Task/Acme outbound: differs in 3 fields');
    expect(r.stdout).not.toContain('server of');
    expect(r.stdout).toMatch(/^Environments: 0 only in prod, 1 only in staging, 3 declared differently, \d+ the same\.$/m);
    expect(prod.requestLog()).toEqual([]);
    expect(staging.requestLog()).toEqual([]);
  });

  it('exits 0 when the two environments declare the same objects alike, and 1 for an environment the configuration lacks', async () => {
    const dir = workdir();
    writeFileSync(
      join(dir, 'mftops.yaml'),
      emulatorEnvironmentsYaml(['a', 'b'].map((environment) => ({ environment, automationUrl: prod.automationUrl, manifests: ['manifests/access'] }))),
    );
    const same = await runCli(['diff-env', 'a', 'b', '--offline'], { cwd: dir, env: {} });
    expect([same.code, same.stdout]).toEqual([0, expect.stringContaining('No differences: both environments declare the same objects alike.')]);
    const unknown = await runCli(['diff-env', 'a', 'production', '--offline'], { cwd: dir, env: {} });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('production');
  });

  it('stops on a manifest error of either environment before any request (exit 1, the error at its file and line)', async () => {
    const dir = workdir();
    writeFileSync(join(dir, 'staging/broken.yaml'), 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Broken }\nspec: { Activ: 1 }\n');
    const r = await runCli(['diff-env', 'prod', 'staging'], { cwd: dir, env: APPLY_ENV });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/staging\/broken\.yaml:4:\d+: error MF201/);
    expect(prod.requestLog()).toEqual([]);
    expect(staging.requestLog()).toEqual([]);
  });

  it('--format markdown: a table of the objects, the differing fields in details', async () => {
    const r = await runCli(['diff-env', 'prod', 'staging', '--offline', '--format', 'markdown'], { cwd: workdir(), env: {} });
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^## mftops diff-env: prod → staging$/m);
    expect(r.stdout).toContain('| Field | prod | staging |');
    expect(r.stdout).toContain('<details><summary>Task/Acme outbound</summary>');
  });
});
