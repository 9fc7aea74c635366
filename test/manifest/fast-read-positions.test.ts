import { describe, expect, it } from 'vitest';
import { parseSimpleYaml } from '../../src/manifest/fast-yaml.js';
import { parseManifestFile } from '../../src/manifest/parse.js';
import { validateParsedFiles } from '../../src/manifest/validate.js';

/** Manifests taken by the fast reader keep no syntax tree: positions come from a lazy re-parse. */
describe('manifests read fast still point diagnostics at the right place', () => {
  it('reports a rule violation at the line and column of the offending value', () => {
    const text = [
      'apiVersion: mftops/v1',
      'kind: ResourceGroupAcl',
      'metadata: { name: ops }',
      'spec:',
      '  resourceGroup: Finance',
      '  userGroup: Operators',
      '  permissions: [TaskRun, TaskAddEditDelete]',
      '',
    ].join('\n');
    expect(parseSimpleYaml(text)).toBeDefined();
    const set = validateParsedFiles([parseManifestFile('acl.yaml', text)]);
    expect(set.diagnostics.find((d) => d.code === 'MF303')).toMatchObject({ file: 'acl.yaml', line: 7, col: 26 });
  });

  it('reports a schema error in the second document of a file at its line, and keeps the first', () => {
    const text = [
      'apiVersion: mftops/v1',
      'kind: ResourceGroupAcl',
      'metadata: { name: a }',
      'spec: { resourceGroup: A, userGroup: B, permissions: [] }',
      '---',
      '# the second one',
      'apiVersion: mftops/v1',
      'kind: ResourceGroupAcl',
      'metadata: { name: b }',
      'spec: { resourceGroup: A, userGroup: C, permissions: [Fly] }',
      '',
    ].join('\n');
    expect(parseSimpleYaml(text)).toHaveLength(2);
    const set = validateParsedFiles([parseManifestFile('two.yaml', text)]);
    expect(set.diagnostics.filter((d) => d.severity === 'error').map((d) => d.line)).toEqual([10]);
    expect(set.manifests.map((m) => [m.name, m.source.line, m.source.col])).toEqual([['a', 1, 1]]);
  });

  it('points a duplicate previous name at its list item', () => {
    const text =
      'apiVersion: mftops/v1\nkind: ResourceGroupAcl\nmetadata:\n  name: ops\n  previousNames: [old, ops]\nspec: { resourceGroup: A, userGroup: B, permissions: [] }\n';
    expect(parseSimpleYaml(text)).toBeDefined();
    const set = validateParsedFiles([parseManifestFile('p.yaml', text)]);
    expect(set.diagnostics.find((d) => d.code === 'MF302')).toMatchObject({ line: 5, col: 24 });
  });
});
