import { describe, expect, it } from 'vitest';
import { DIAGNOSTIC_CODES } from '../../src/diagnostics.js';
import { DOCUMENT_KINDS } from '../../src/manifest/types.js';
import { testdir } from '../helpers/testdir.js';
import { runCli } from '../helpers/run-cli.js';

describe('mftops explain', () => {
  it('explains a code: name, meaning, an example that triggers it, the fix', async () => {
    const r = await runCli(['explain', 'MF305']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(
      /^MF305 time-of-day \(manifests: mftops validate\)\n\nA schedule's `StartTime` or `EndTime` is not a time `HH:mm` from 00:00 to 23:59\.\n\nExample \(a manifest\):\n\n {4}apiVersion: mftops\/v1\n/,
    );
    expect(r.stdout).toContain('StartTime: "25:00"');
    expect(r.stdout).toMatch(/\nFix: Write a time of day with two-digit hours, quoted: `"02:00"`\.\n$/);
  });

  it('MF102 names every kind validate accepts, Policy and Patch included, as its message does', async () => {
    const r = await runCli(['explain', 'MF102']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('a manifest is a `Task`, a `ResourceGroupAcl`, a `FolderPermissions`, a `User`, a `Group`, a `Policy` or a `Patch`.');
    expect(r.stdout).toContain('Fix: Write one of the 7 kinds');
    // The same list validate's message gives.
    const dir = testdir({ 'm.yaml': 'apiVersion: mftops/v1\nmetadata: { name: x }\nspec: {}\n' });
    const v = await runCli(['validate', 'm.yaml'], { cwd: dir });
    expect(v.stdout + v.stderr).toContain(`missing \`kind\`: one of ${DOCUMENT_KINDS.join(', ')}`);
    for (const kind of DOCUMENT_KINDS) expect(r.stdout).toContain(`\`${kind}\``);
  });

  it('without a code, lists every code with its name and meaning', async () => {
    const r = await runCli(['explain']);
    expect(r.code).toBe(0);
    for (const [code, name] of Object.entries(DIAGNOSTIC_CODES)) expect(r.stdout).toMatch(new RegExp(`^${code}  ${name} +\\S`, 'm'));
  });

  it('refuses a code that does not exist, suggesting the nearest, exit 1', async () => {
    const r = await runCli(['explain', 'MF3O5']);
    expect(r).toMatchObject({ code: 1, stdout: '', stderr: 'mftops: error: no diagnostic code "MF3O5" — did you mean MF305? (mftops explain lists them)\n' });
  });

  it('prints JSON and markdown', async () => {
    const json = JSON.parse((await runCli(['explain', 'unknown-field', '--format', 'json'])).stdout);
    expect(json).toMatchObject({
      formatVersion: 1,
      kind: 'mftops.explain',
      code: { code: 'MF201', name: 'unknown-field', stage: 'manifests', example: { in: 'manifest' } },
    });
    expect(json.code.example.text).toContain('FileMsk');
    const md = (await runCli(['explain', 'MF409', '--format', 'markdown'])).stdout;
    expect(md).toContain('## MF409 `unknown-target`');
    expect(md).toContain('```sh\nmftops plan --target "Task/Payroll to bnak"\n```');
  });
});
