import { describe, expect, it } from 'vitest';
import { hasStackTrace, runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';

/** mftops.yaml allowing `megabytes` of manifests, its one service on a port nothing listens on. */
function config(megabytes: number): string {
  return [
    'apiVersion: mftops/v1',
    'kind: Config',
    `limits: { manifestMegabytes: ${megabytes} }`,
    'environments:',
    '  lab:',
    '    automation: { url: "http://127.0.0.1:9/automation", username: admin, password: "${env:MFT_AUTOMATION_PASSWORD}" }',
    '    manifests: [manifests]',
    '',
  ].join('\n');
}

/** A valid task padded with a comment to about `bytes`. */
function task(name: string, bytes: number): string {
  return `apiVersion: mftops/v1\nkind: Task\nmetadata: { name: ${name} }\nspec:\n  Active: 1\n#${'x'.repeat(bytes)}\n`;
}

describe('the total bound on manifest bytes per run', () => {
  it('validate and plan stop with one MF008 line naming the total and the limit, exit 1, before any request', async () => {
    const files = { 'manifests/a.yaml': task('A', 700_000), 'manifests/b.yaml': task('B', 700_000), 'manifests/c.yaml': 'not: [valid\n' };
    const dir = testdir({ 'mftops.yaml': config(1), ...files });
    const validate = await runCli(['validate'], { cwd: dir });
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(
      'manifests/b.yaml: error MF008: the manifests hold 1.3 MB in 3 files, over the 1 MB limit for one run; nothing was checked',
    );
    // Nothing after the limit was parsed: the broken third file is not reported.
    expect(validate.stdout).not.toContain('MF001');
    // Paths with --config: the configuration's limit counts, as MF008's hint says when it is left out.
    const withPaths = await runCli(['validate', '--config', 'mftops.yaml', 'manifests'], { cwd: dir });
    expect(withPaths.code).toBe(1);
    expect(withPaths.stdout).toContain('over the 1 MB limit for one run; nothing was checked');
    expect(hasStackTrace(validate.stdout + validate.stderr)).toBe(false);
    const plan = await runCli(['plan', '--format', 'json'], { cwd: dir, env: { MFT_AUTOMATION_PASSWORD: 'unused' } });
    expect(plan.code).toBe(1);
    expect(plan.stdout + plan.stderr).toContain('MF008');
    expect(plan.stdout + plan.stderr).not.toMatch(/ECONNREFUSED|127\.0\.0\.1:9/);
    // Within the limit, the same manifests are checked as usual.
    const roomy = testdir({ 'mftops.yaml': config(2), 'manifests/a.yaml': files['manifests/a.yaml'], 'manifests/b.yaml': files['manifests/b.yaml'] });
    const ok = await runCli(['validate'], { cwd: roomy });
    expect(ok.stdout).toContain('2 manifests valid');
    expect(ok.code).toBe(0);
  }, 60_000);
});
