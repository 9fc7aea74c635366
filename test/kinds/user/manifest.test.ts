import { describe, expect, it } from 'vitest';
import { parseManifestFile } from '../../../src/manifest/parse.js';
import { validateParsedFiles } from '../../../src/manifest/validate.js';
import { renderDiagnosticsText } from '../../../src/render/diagnostics.js';

const FILE = '/work/manifests/users.yaml';

function validate(yaml: string) {
  return validateParsedFiles([parseManifestFile(FILE, yaml)]);
}

describe('User manifests', () => {
  it('load with every documented field', () => {
    const set = validate(
      'apiVersion: mftops/v1\nkind: User\nmetadata:\n  name: alice\n  previousNames: [asmith]\nspec:\n  fullName: Alice\n  email: a@example.com\n  permission: FileAdmin\n  status: Suspended\n  authMethod: Both\n  notes: n\n  emailFormat: Text\n  receivesNotification: ReceivesNoNotifications\n  folderQuota: 1048576\n  forceChangePassword: true\n  homeFolderPath: /Home/alice\n  password: ${file:secrets/alice}\n',
    );
    expect(set.diagnostics).toEqual([]);
    expect(set.manifests[0]).toMatchObject({ kind: 'User', name: 'alice', previousNames: ['asmith'], spec: { permission: 'FileAdmin', folderQuota: 1048576 } });
  });

  it('refuse a literal password at its place, without repeating it', () => {
    const set = validate('apiVersion: mftops/v1\nkind: User\nmetadata: { name: alice }\nspec:\n  fullName: Alice\n  password: Hunter2-literal\n');
    const errors = set.diagnostics.filter((d) => d.severity === 'error');
    expect(errors).toHaveLength(1);
    expect([errors[0]!.line, errors[0]!.col]).toEqual([6, 13]);
    const text = renderDiagnosticsText({ diagnostics: errors, manifestCount: 1 }, { color: false, cwd: '/work' });
    expect(text).toContain('manifests/users.yaml:6:13');
    expect(text).toContain('error MF307: `password` must be');
    expect(text).toContain('not a literal secret');
    expect(text).not.toContain('Hunter2-literal');
  });

  it('refuse a permission the API does not take, and two documents for one username (case aside)', () => {
    const bad = validate('apiVersion: mftops/v1\nkind: User\nmetadata: { name: alice }\nspec:\n  permission: Root\n');
    expect(bad.diagnostics.some((d) => d.severity === 'error' && d.line === 5)).toBe(true);
    const twice = validate(
      'apiVersion: mftops/v1\nkind: User\nmetadata: { name: alice }\nspec: {}\n---\napiVersion: mftops/v1\nkind: User\nmetadata: { name: ALICE }\nspec: {}\n',
    );
    expect(twice.diagnostics.map((d) => d.code)).toContain('MF301');
  });
});
