import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startFakeGithub } from '../action/fake-github.js';
import type { FakeGithub } from '../action/fake-github.js';
import { CREDENTIALS, MANIFEST_SECRETS, checkout, pullRequestEvent, runActionProcess } from '../action/harness.js';
import { APPLY_ENV, SECRETS, applyWorkdir } from '../apply/helpers.js';
import { runCli } from '../helpers/run-cli.js';
import type { CliResult } from '../helpers/run-cli.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';
import { readIssuedTokens } from '../helpers/emulator-test-api.js';

/**
 * One harness for every secret mftops handles: it seeds known values (server passwords, the
 * servers' access and refresh tokens, `${env:}` and `${file:}` values of manifests, host passwords
 * that the XML export holds in clear, the snapshot key) and scans everything mftops writes —
 * stdout and stderr of every command (verbose too), plan files, markdown, JSON reports, the
 * ledger, snapshot metadata, imported manifests, the Action's log, job summary and PR comment
 * bodies. A hit anywhere fails. The only file allowed to hold secrets is the snapshot's
 * `automation-config.xml` (the export as received; mode 0600, DESIGN §5.2).
 */
const SNAPSHOT_KEY = 'a'.repeat(64);
const STATIC_SECRETS = [
  SEED_LOGINS.automationAdmin.password,
  SEED_LOGINS.transferAdmin.password,
  SEED_LOGINS.automationOperator.password,
  'SEEDSECRET',
  ...Object.values(SECRETS),
  ...Object.values(MANIFEST_SECRETS),
  SNAPSHOT_KEY,
];

let emulator: RunningEmulator;
let github: FakeGithub;
beforeAll(async () => {
  [emulator, github] = await Promise.all([startSeededEmulator({ accessTtlSeconds: 2 }), startFakeGithub()]);
});
afterAll(async () => {
  await Promise.all([emulator.close(), github.close()]);
});

/** Every token either server ever issued (access and refresh), valid or not. */
function issuedTokens(): string[] {
  return readIssuedTokens(emulator);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

interface Scanned {
  readonly where: string;
  readonly text: string;
}

function findLeaks(scanned: readonly Scanned[], secrets: readonly string[]): string[] {
  return scanned.flatMap(({ where, text }) => secrets.filter((s) => s.length >= 4 && text.includes(s)).map((s) => `${where}: ${s.slice(0, 6)}…`));
}

describe('secrets', () => {
  it('no secret appears in anything mftops writes, across every command and the Action', async () => {
    const dir = applyWorkdir(emulator, { files: { 'imported/.keep': '' } });
    const env = { ...APPLY_ENV, MFTOPS_SNAPSHOT_KEY: SNAPSHOT_KEY };
    const outputs: Array<[string, CliResult]> = [];
    const cli = async (args: string[], e: Record<string, string> = env): Promise<CliResult> => {
      const r = await runCli(args, { cwd: dir, env: e });
      outputs.push([args.join(' '), r]);
      return r;
    };

    expect((await cli(['status', '-v'])).code).toBe(0);
    expect((await cli(['plan', '-v', '--out', 'plan.json'])).code).toBe(0);
    await cli(['plan', '--format', 'markdown']);
    await cli(['plan', '--format', 'json']);
    await cli(['plan', '--format', 'github']);
    // Apply through token expiry (2 s tokens), with every log line on.
    const applied = await cli(['apply', 'plan.json', '--allow-delete', '--allow-replace', '--format', 'json', '-v']);
    expect(applied.code).toBe(0);
    await cli(['drift', '--report', 'drift.json', '-v']);
    await cli(['drift', '--format', 'markdown']);
    await cli(['snapshot', 'save', '-v']);
    await cli(['snapshot', 'list']);
    await cli(['snapshot', 'verify', 'latest']);
    await cli(['import', '--kind', 'Task', '--kind', 'ResourceGroupAcl', '--kind', 'FolderPermissions', '--all', '--out', 'imported', '--force', '-v']);
    // Failures print server text: a wrong password must not be echoed, nor the right one.
    const wrong = await cli(['plan', '-v'], { ...env, MFT_AUTOMATION_PASSWORD: 'wrong-Pa55-x71!' });
    expect(wrong.code).toBe(1);

    // The Action on a pull request: log, job summary, the sticky comment.
    const ws = checkout(emulator);
    github.addPullRequest(7, 'Secrets harness');
    const action = await runActionProcess({
      inputs: { command: 'plan', 'working-directory': 'mft', 'github-token': github.token },
      workspace: ws,
      eventName: 'pull_request',
      event: pullRequestEvent(7, 'abcdef0123456789abcdef0123456789abcdef01'),
      github,
      env: CREDENTIALS,
    });
    expect(action.code).toBe(0);
    const comments = [...github.comments.values()];
    expect(comments.length).toBeGreaterThan(0);

    const written = [...filesUnder(dir), ...filesUnder(ws)].filter(
      (f) =>
        !f.endsWith('automation-config.xml') &&
        !f.includes(`${join('manifests', 'secrets')}`) &&
        !f.endsWith('finance-share-audit.txt') &&
        !f.endsWith('mftops.yaml'),
    );
    // What the harness actually looked at: a plan file, a ledger, snapshot metadata, imports, a drift report.
    const names = written.map((f) => relative(dir, f));
    expect(names).toContain('plan.json');
    expect(names.some((n) => n.endsWith('ledger.jsonl'))).toBe(true);
    expect(names.some((n) => n.endsWith('snapshot.json'))).toBe(true);
    expect(names.some((n) => n.startsWith('imported/') && n.endsWith('.yaml'))).toBe(true);
    expect(names).toContain('drift.json');

    const scanned: Scanned[] = [
      ...outputs.flatMap(([cmd, r]) => [
        { where: `${cmd} (stdout)`, text: r.stdout },
        { where: `${cmd} (stderr)`, text: r.stderr },
      ]),
      { where: 'action log', text: action.stdout + action.stderr },
      { where: 'action job summary', text: action.summary },
      { where: 'action outputs', text: JSON.stringify(action.outputs) },
      ...comments.map((c) => ({ where: `PR comment ${c.id}`, text: c.body })),
      ...written.map((f) => ({ where: f, text: readFileSync(f, 'latin1') })),
    ];
    const tokens = issuedTokens();
    // The servers did issue many tokens (2 s lifetime): the scan looks for real values.
    expect(tokens.length).toBeGreaterThan(4);
    expect(findLeaks(scanned, [...STATIC_SECRETS, 'wrong-Pa55-x71!', ...tokens])).toEqual([]);

    // The harness finds a leak when there is one (a check that cannot fail proves nothing).
    writeFileSync(join(dir, 'leaky.txt'), `token=${tokens[0]}`);
    expect(findLeaks([{ where: 'leaky.txt', text: readFileSync(join(dir, 'leaky.txt'), 'utf8') }], tokens)).toHaveLength(1);
  });
});
