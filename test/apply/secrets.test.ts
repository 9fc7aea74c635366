import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redactSecrets, resolvePayloadSecrets } from '../../src/apply/secrets.js';
import { testdir } from '../helpers/testdir.js';
import { change, taskCreate } from './helpers.js';

describe('resolvePayloadSecrets', () => {
  it('replaces ${env:} and ${file:} references; file paths are relative to the manifest folder', () => {
    const cwd = testdir({ 'manifests/tasks/secrets/pw.txt': 'from-file\n' });
    const c = taskCreate(
      'T',
      { Parameters: { Key: { value: '${env:KEY}', DisplayValue: '(suppressed)' }, Plain: { value: 'not a ${env:REF} reference' } }, steps: [{ Destination: { HostID: '1', Password: '${file:secrets/pw.txt}' } }] },
      { file: 'manifests/tasks/t.yaml', line: 1, col: 1 },
    );
    const r = resolvePayloadSecrets(c, { env: { KEY: 'from-env' }, cwd })!;
    expect(r.payload.kind === 'Task' && r.payload.body['Parameters']).toEqual({ Key: { value: 'from-env', DisplayValue: '(suppressed)' }, Plain: { value: 'not a ${env:REF} reference' } });
    expect(r.payload.kind === 'Task' && r.payload.body['steps']).toEqual([{ Destination: { HostID: '1', Password: 'from-file' } }]);
    expect([...r.secrets].sort()).toEqual(['from-env', 'from-file']);
    // The plan's payload is left as it was: references only.
    expect(JSON.stringify(c.payload)).not.toContain('from-env');
  });

  it('a missing variable or file is an error naming it and the object, never an empty value', () => {
    const c = taskCreate('T', { Parameters: { Key: { value: '${env:NOPE}' } } }, { file: 'm/t.yaml', line: 4, col: 3 });
    expect(() => resolvePayloadSecrets(c, { env: { NOPE: '' }, cwd: '/' })).toThrow('Task/T (m/t.yaml:4): environment variable NOPE is not set');
    const f = taskCreate('F', { Parameters: { Key: { value: '${file:missing.txt}' } } }, { file: 'm/t.yaml', line: 9, col: 3 });
    expect(() => resolvePayloadSecrets(f, { env: {}, cwd: join('/', 'nowhere') })).toThrow('Task/F (m/t.yaml:9): cannot read secret file missing.txt (ENOENT)');
  });

  it('has nothing to do for changes without a payload or without references', () => {
    expect(resolvePayloadSecrets(change({ kind: 'Task', name: 'Gone', action: 'delete', liveId: '1' }), { env: {}, cwd: '/' })).toBeUndefined();
    const acl = change({ kind: 'ResourceGroupAcl', name: 'a', action: 'create', payload: { kind: 'ResourceGroupAcl', resourceGroup: 'R', userGroup: 'U', permissions: { TaskRun: 1 } } });
    expect(resolvePayloadSecrets(acl, { env: {}, cwd: '/' })).toEqual({ payload: acl.payload, secrets: [] });
  });
});

it('redactSecrets replaces every occurrence, longest secret first', () => {
  expect(redactSecrets('key abc123 and abc and abc123', ['abc', 'abc123'])).toBe('key (sensitive) and (sensitive) and (sensitive)');
  expect(redactSecrets('nothing here', [''])).toBe('nothing here');
});
