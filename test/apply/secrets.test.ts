import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeSecretProblems, findSecretProblems, redactSecrets, resolveChangeSecrets } from '../../src/apply/secrets.js';
import { testdir } from '../helpers/testdir.js';
import { change, taskCreate } from './helpers.js';
import type { SecretConfinement } from '../../src/secret.js';

/** Files in `root` only, no credential variable. */
function inside(root: string): SecretConfinement {
  return { fileRoots: [root], credentialVariables: [] };
}

describe('resolveChangeSecrets', () => {
  it('replaces ${env:} and ${file:} references; file paths are relative to the manifest folder', () => {
    const cwd = testdir({ 'manifests/tasks/secrets/pw.txt': 'from-file\n' });
    const c = taskCreate(
      'T',
      {
        Parameters: { Key: { value: '${env:KEY}', DisplayValue: '(suppressed)' }, Plain: { value: 'not a ${env:REF} reference' } },
        steps: [{ Destination: { HostID: '1', Password: '${file:secrets/pw.txt}' } }],
      },
      { file: 'manifests/tasks/t.yaml', line: 1, col: 1 },
    );
    const r = resolveChangeSecrets([c], { env: { KEY: 'from-env' }, cwd, confinement: inside(cwd) });
    if (!r.ok) throw new Error('not resolved');
    const payload = r.resolved.payloads.get('Task/T')!;
    expect(payload.kind === 'Task' && payload.body['Parameters']).toEqual({
      Key: { value: 'from-env', DisplayValue: '(suppressed)' },
      Plain: { value: 'not a ${env:REF} reference' },
    });
    expect(payload.kind === 'Task' && payload.body['steps']).toEqual([{ Destination: { HostID: '1', Password: 'from-file' } }]);
    expect([...r.resolved.values].sort()).toEqual(['from-env', 'from-file']);
    // The plan's payload is left as it was: references only.
    expect(JSON.stringify(c.payload)).not.toContain('from-env');
  });

  it('tries every reference of every change and names each that has no value: variable, or resolved path and why', () => {
    const cwd = testdir({ 'm/empty.txt': '\n', 'm/ok.txt': 'file-secret-value' });
    const source = (line: number) => ({ file: 'm/t.yaml', line, col: 1 });
    const changes = [
      taskCreate(
        'A',
        {
          Parameters: { Key: { value: '${env:UNSET_ONE}' }, Other: { value: '${env:EMPTY_ONE}' } },
          steps: [{ Destination: { HostID: '1', Password: '${file:missing.txt}' } }],
        },
        source(1),
      ),
      taskCreate(
        'B',
        {
          Parameters: { Key: { value: '${env:UNSET_ONE}' }, Ok: { value: '${env:SET_ONE}' } },
          steps: [{ Source: { HostID: '1', Password: '${file:empty.txt}' } }, { Destination: { HostID: '1', Password: '${file:ok.txt}' } }],
        },
        source(9),
      ),
      taskCreate('C', { steps: [{ Destination: { HostID: '1', Password: '${file:ok.txt}' } }, { Destination: { HostID: '2', Password: '${file:ok.txt}' } }] }),
    ];
    const r = resolveChangeSecrets(changes, { env: { EMPTY_ONE: '', SET_ONE: 'env-secret-value' }, cwd, confinement: inside(cwd) });
    expect(r.ok).toBe(false);
    const problems = r.ok ? [] : r.problems;
    expect(problems.map((p) => [p.address, p.failure])).toEqual([
      ['Task/A', { kind: 'file', path: join(cwd, 'm/missing.txt'), why: 'missing' }],
      ['Task/A', { kind: 'env', name: 'UNSET_ONE', why: 'unset' }],
      ['Task/A', { kind: 'env', name: 'EMPTY_ONE', why: 'empty' }],
      ['Task/B', { kind: 'file', path: join(cwd, 'm/empty.txt'), why: 'empty' }],
      ['Task/B', { kind: 'env', name: 'UNSET_ONE', why: 'unset' }],
      // Named once, though two steps send it; an object without a manifest resolves from the working folder.
      ['Task/C', { kind: 'file', path: join(cwd, 'ok.txt'), why: 'missing' }],
    ]);
    expect(describeSecretProblems(problems)).toEqual([
      `secret file ${join(cwd, 'm/missing.txt')} does not exist: needed by Task/A (m/t.yaml:1)`,
      'environment variable UNSET_ONE is not set: needed by Task/A (m/t.yaml:1), Task/B (m/t.yaml:9)',
      'environment variable EMPTY_ONE is set but empty: needed by Task/A (m/t.yaml:1)',
      `secret file ${join(cwd, 'm/empty.txt')} is empty: needed by Task/B (m/t.yaml:9)`,
      `secret file ${join(cwd, 'ok.txt')} does not exist: needed by Task/C`,
    ]);
    // What can be shown holds no value.
    const shown = JSON.stringify(problems) + describeSecretProblems(problems).join('\n');
    for (const value of ['env-secret-value', 'file-secret-value']) expect(shown).not.toContain(value);
  });

  it('says why a file that is there cannot be read', () => {
    const cwd = testdir({ 'm/locked.txt': 'locked-secret-value', 'm/folder/x': '' });
    chmodSync(join(cwd, 'm/locked.txt'), 0o000);
    const c = taskCreate(
      'A',
      { steps: [{ Destination: { HostID: '1', Password: '${file:folder}' } }, { Destination: { HostID: '2', Password: '${file:locked.txt}' } }] },
      { file: 'm/t.yaml', line: 1, col: 1 },
    );
    const lines = describeSecretProblems(findSecretProblems([c], { env: {}, cwd, confinement: inside(cwd) }));
    expect(lines[0]).toBe(`secret file ${join(cwd, 'm/folder')} is not a regular file (a FIFO, device, socket or folder): needed by Task/A (m/t.yaml:1)`);
    // root reads any file: then the locked file is no problem at all.
    if (process.getuid?.() !== 0) expect(lines[1]).toBe(`secret file ${join(cwd, 'm/locked.txt')} cannot be read (EACCES): needed by Task/A (m/t.yaml:1)`);
  });

  it('has nothing to do for changes without a payload or without references', () => {
    const gone = change({ kind: 'Task', name: 'Gone', action: 'delete', liveId: '1' });
    const acl = change({
      kind: 'ResourceGroupAcl',
      name: 'a',
      action: 'create',
      payload: { kind: 'ResourceGroupAcl', resourceGroup: 'R', userGroup: 'U', permissions: { TaskRun: 1 } },
    });
    const r = resolveChangeSecrets([gone, acl], { env: {}, cwd: '/', confinement: inside('/') });
    expect(r.ok && [...r.resolved.payloads]).toEqual([['ResourceGroupAcl/a', acl.payload]]);
    expect(findSecretProblems([gone, acl], { env: {}, cwd: '/', confinement: inside('/') })).toEqual([]);
  });
});

it('redactSecrets replaces every occurrence, longest secret first', () => {
  expect(redactSecrets('key abc123 and abc and abc123', ['abc', 'abc123'])).toBe('key (sensitive) and (sensitive) and (sensitive)');
  expect(redactSecrets('nothing here', [''])).toBe('nothing here');
});
