import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/load.js';
import { manifestDigest } from '../../src/plan/manifest-digest.js';
import { testdir } from '../helpers/testdir.js';

const ACL = (name: string) =>
  `apiVersion: mftops/v1\nkind: ResourceGroupAcl\nmetadata: { name: ${name} }\nspec: { resourceGroup: Finance, userGroup: Auditors, permissions: [TaskRun] }\n`;

describe('manifest digest', () => {
  it('is stable for the same files, and changes when a file is edited or renamed', async () => {
    const dir = testdir({ 'm/a.yaml': ACL('a'), 'm/b.yaml': ACL('b').replace('Auditors', 'Finance Operators') });
    const digestNow = async () => manifestDigest(await loadManifests([join(dir, 'm')], { cwd: dir }), dir);
    const first = await digestNow();
    expect(await digestNow()).toBe(first);
    writeFileSync(join(dir, 'm/a.yaml'), ACL('a').replace('[TaskRun]', '[TaskRun, TaskEditExisting]'));
    const edited = await digestNow();
    expect(edited).not.toBe(first);
    renameSync(join(dir, 'm/a.yaml'), join(dir, 'm/c.yaml'));
    expect(await digestNow()).not.toBe(edited);
  });
});
