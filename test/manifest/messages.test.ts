import { describe, expect, it } from 'vitest';
import { runValidate } from '../../src/cli/commands/validate.js';
import { captureIo } from '../../src/cli/io.js';
import { loadManifests } from '../../src/manifest/load.js';
import { testdir } from '../helpers/testdir.js';

const task = (spec: string) => `apiVersion: mftops/v1\nkind: Task\nmetadata:\n  name: T\nspec:\n${spec}`;

async function messagesOf(text: string) {
  const dir = testdir({ 'm.yaml': text });
  const set = await loadManifests(['m.yaml'], { cwd: dir });
  return set.diagnostics.map((d) => d.summary);
}

describe('messages in the user’s terms', () => {
  it('names the bound that was crossed', async () => {
    expect(await messagesOf(task('  steps:\n    - Source: { Host: h, RetryCount: 32001 }\n'))).toEqual(['`RetryCount` must be at most 32000, not 32001']);
  });

  it('lists the allowed values of an enumeration', async () => {
    expect(await messagesOf(task('  steps:\n    - Source: { Host: h, DeleteOrig: 5 }\n'))).toEqual(['`DeleteOrig` must be one of 0, 1, 2, not `5`']);
  });

  it('suggests the field that was meant', async () => {
    expect(await messagesOf(task('  steps:\n    - Source: { Host: h, FileMsk: "*.csv" }\n'))).toEqual([
      'unknown field `FileMsk` in Source step — did you mean `FileMask`?',
    ]);
    expect(await messagesOf(task('  Schedules:\n    Schedule:\n      - Frequency: { Interval: [] }\n        OnlyUntilFirstSucces: 1\n'))).toContain(
      'unknown field `OnlyUntilFirstSucces` in Schedule — did you mean `OnlyUntilFirstSuccess`?',
    );
  });

  it('suggests the kind that was meant', async () => {
    expect(await messagesOf('apiVersion: mftops/v1\nkind: ResourceGroupACL\nmetadata: { name: x }\nspec: {}\n')).toEqual([
      'unknown kind `ResourceGroupACL` — did you mean `ResourceGroupAcl`?',
    ]);
  });

  it('collapses the alternatives of a folder entry into one message', async () => {
    const text = 'apiVersion: mftops/v1\nkind: FolderPermissions\nmetadata: { name: /A }\nspec:\n  mode: exact\n  entries:\n    - { permissions: [] }\n';
    expect(await messagesOf(text)).toEqual(['`entries[0]` names exactly one of `user` or `group`']);
  });

  it('reports every mistake of a document, not only the first', async () => {
    const spec = '  Active: 3\n  CacheNames: orig\n  steps:\n    - Source: { Host: h, MxFi: -1, Sort: Size }\n';
    expect(await messagesOf(task(spec))).toHaveLength(3);
  });

  it('never repeats a literal password in any output format', async () => {
    const dir = testdir({
      'm.yaml': task('  steps:\n    - Source: { Host: h, Password: hunter2-SEEDSECRET-9 }\n    - Destination: { Host: h, Password: 12345678 }\n'),
    });
    for (const format of ['text', 'json', 'github'] as const) {
      const io = captureIo({ cwd: dir });
      expect(await runValidate({ paths: ['m.yaml'], format }, io)).toBe(1);
      expect(io.out()).toContain('MF307');
      expect(io.out()).not.toContain('SEEDSECRET');
      expect(io.out()).not.toContain('12345678');
    }
  });
});

describe('steps manifests do not model', () => {
  it('says so instead of calling them unknown', async () => {
    expect(await messagesOf(task('  steps:\n    - For: { steps: [] }\n'))).toEqual(['`For` steps are not supported in manifests']);
  });
});
