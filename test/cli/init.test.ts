import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { installedMftops } from '../helpers/installed-mftops.js';
import { testdir } from '../helpers/testdir.js';

describe('mftops init', () => {
  it('writes a project that mftops validate and mftops fmt --check pass, and lists its files', async () => {
    // No .git: the project folder is the repository, and mftops is installed there.
    const dir = testdir(installedMftops('mft'));
    const init = await runCli(['init', 'mft'], { cwd: dir });
    expect(init.code).toBe(0);
    expect(init.stdout.split('\n')).toEqual([
      'mft/mftops.yaml',
      'mft/manifests/tasks/example-task.yaml',
      'mft/manifests/access/example-acl.yaml',
      'mft/manifests/folders/example-folder.yaml',
      'mft/.mftops/.gitignore',
      'mft/.github/workflows/mftops-plan.yml',
      'mft/.github/workflows/mftops-apply.yml',
      'mft/.github/workflows/mftops-drift.yml',
      '',
    ]);
    expect(init.stderr).toMatch(/^mftops: note: next, .*cd mft && mftops validate && mftops status && mftops plan/);
    expect(init.stderr).toContain(
      'mftops: note: the workflows run the action ./node_modules/mftops, which npm ci installs: commit package.json and package-lock.json\n',
    );

    const validate = await runCli(['validate'], { cwd: join(dir, 'mft') });
    expect(validate).toMatchObject({ code: 0, stdout: '3 manifests valid\n', stderr: '' });
    expect(await runCli(['fmt', '--check'], { cwd: join(dir, 'mft') })).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('refuses to overwrite, naming the files, and exits 1; --force overwrites', async () => {
    const dir = testdir({ 'mftops.yaml': 'mine\n', ...installedMftops() });
    const refused = await runCli(['init'], { cwd: dir });
    expect(refused).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'mftops: error: 1 of the files to write already exist; nothing was written (use --force to overwrite them):\n  mftops.yaml\n',
    });
    expect(readFileSync(join(dir, 'mftops.yaml'), 'utf8')).toBe('mine\n');
    expect((await runCli(['init', '--force', '--env', 'lab', '-q'], { cwd: dir })).code).toBe(0);
    expect(readFileSync(join(dir, 'mftops.yaml'), 'utf8')).toContain('environments:\n  lab:\n');
  });

  it('without mftops installed in the repository, asks for --action-ref in one line, exits 1 and writes nothing', async () => {
    const dir = testdir({});
    const init = await runCli(['init'], { cwd: dir });
    expect(init).toMatchObject({ code: 1, stdout: '' });
    expect(init.stderr).toMatch(
      /^mftops: error: the workflows need the mftops action, and this repository does not install mftops .*: run npm i -D mftops and then npx mftops init, or give --action-ref OWNER\/REPO@REF\n$/,
    );
    expect(readdirSync(dir)).toEqual([]);

    const bad = await runCli(['init', '--action-ref', 'mftops@v1'], { cwd: dir });
    expect(bad).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'mftops: error: --action-ref: "mftops@v1" is not OWNER/REPO@REF (e.g. my-org/mftops@v1, or a full commit SHA after the @)\n',
    });
    expect(readdirSync(dir)).toEqual([]);

    const given = await runCli(['init', '--action-ref', 'acme-corp/mftops@v1', '-q'], { cwd: dir });
    expect(given).toMatchObject({ code: 0, stderr: '' });
    expect(readFileSync(join(dir, '.github/workflows/mftops-plan.yml'), 'utf8')).toMatch(/^\s+- uses: acme-corp\/mftops@v1$/m);
  });
});
