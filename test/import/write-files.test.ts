import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { ImportedManifest, ImportKind } from '../../src/import/model.js';
import fc from 'fast-check';
import { createPathPlanner, planImportFiles, planImportPaths, renderManifestFile, safeFileStem, writeImportFiles } from '../../src/import/write-files.js';
import { findSchemasDir } from '../../src/manifest/schemas.js';
import { testdir } from '../helpers/testdir.js';

function manifest(kind: ImportKind, name: string, spec: Record<string, unknown> = {}, notes: string[] = []): ImportedManifest {
  return { kind, name, address: `${kind}/${name}`, document: { apiVersion: 'mftops/v1', kind, metadata: { name }, spec }, notes };
}

describe('file names', () => {
  it('are, whole or planned in parts, the paths join and relative give (the plain way the planner replaced)', () => {
    const folders: Record<string, string> = { Task: 'tasks', ResourceGroupAcl: 'access', FolderPermissions: 'folders' };
    const plain = (ms: readonly ImportedManifest[], out: string) => {
      const taken = new Set<string>();
      return ms.map((m) => {
        const stem = safeFileStem(m.kind === 'FolderPermissions' ? m.name.replace(/^\/+/, '') || 'root' : m.name, m.kind);
        let relPath = `${folders[m.kind]!}/${stem}.yaml`;
        for (let n = 2; taken.has(relPath); n++) relPath = `${folders[m.kind]!}/${stem}-${n}.yaml`;
        taken.add(relPath);
        const path = join(out, ...relPath.split('/'));
        expect(relative(out, path).startsWith('..')).toBe(false);
        return { relPath, path };
      });
    };
    const out = testdir({});
    const kind = fc.constantFrom<ImportKind>('Task', 'ResourceGroupAcl', 'FolderPermissions');
    const name = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('a', 'A', 'a!', '/a', '/', '..', 'con'));
    fc.assert(
      fc.property(fc.array(fc.tuple(kind, name), { maxLength: 30 }), fc.integer({ min: 1, max: 8 }), (objects, part) => {
        const ms = objects.map(([k, n]) => manifest(k, n));
        const expected = plain(ms, out);
        expect(planImportPaths(ms, out).map((p) => ({ relPath: p.relPath, path: p.path }))).toEqual(expected);
        const planner = createPathPlanner(out);
        const inParts = [];
        for (let i = 0; i < ms.length; i += part) inParts.push(...planner(ms.slice(i, i + part)));
        expect(inParts.map((p) => ({ relPath: p.relPath, path: p.path }))).toEqual(expected);
      }),
    );
  });

  it('keep hostile names inside the output folder: no traversal, no separators, no device names', () => {
    const names = ['../x', '..\\..\\evil', '/etc/passwd', 'C:\\Windows\\system32', 'a/../../b', 'CON', 'nul', '.', '..', 'x\u0000y', 'line\nbreak'];
    const out = testdir({});
    const files = planImportFiles(
      names.map((n) => manifest('Task', n)),
      out,
    );
    for (const f of files) {
      const rel = relative(out, f.path);
      expect(rel.startsWith('..'), f.relPath).toBe(false);
      expect(f.relPath).toMatch(/^tasks\/[a-z0-9-]+\.yaml$/);
      expect(rel.split(sep)).toHaveLength(2);
    }
    expect(files.map((f) => f.relPath)).toEqual([
      'tasks/x.yaml',
      'tasks/evil.yaml',
      'tasks/etc-passwd.yaml',
      'tasks/c-windows-system32.yaml',
      'tasks/a-b.yaml',
      'tasks/con-1.yaml',
      'tasks/nul-1.yaml',
      files[7]!.relPath,
      files[8]!.relPath,
      'tasks/x-y.yaml',
      'tasks/line-break.yaml',
    ]);
    // Names with nothing usable get a stable name from their hash, different per name.
    expect(files[7]!.relPath).toMatch(/^tasks\/task-[0-9a-f]{8}\.yaml$/);
    expect(files[8]!.relPath).not.toBe(files[7]!.relPath);
  });

  it('are readable, per kind folder, and numbered when two objects would share one', () => {
    const files = planImportFiles(
      [
        manifest('Task', 'Payroll to bank'),
        manifest('Task', 'payroll-to-bank'),
        manifest('Task', 'PAYROLL TO BANK!'),
        manifest('Task', 'Überweisung Zürich'),
        manifest('ResourceGroupAcl', 'Finance/Finance Operators'),
        manifest('FolderPermissions', '/Distribution/Acme/Outbound'),
        manifest('FolderPermissions', '/'),
      ],
      testdir({}),
    );
    expect(files.map((f) => f.relPath)).toEqual([
      'tasks/payroll-to-bank.yaml',
      'tasks/payroll-to-bank-2.yaml',
      'tasks/payroll-to-bank-3.yaml',
      'tasks/uberweisung-zurich.yaml',
      'access/finance-finance-operators.yaml',
      'folders/distribution-acme-outbound.yaml',
      'folders/root.yaml',
    ]);
  });

  it('are at most 80 characters before the extension', () => {
    expect(safeFileStem('x'.repeat(300), 'Task')).toHaveLength(80);
  });
});

describe('file text', () => {
  it('starts with the $schema line, carries notes as comments, and quotes values other YAML readers would misread', () => {
    const m = manifest(
      'Task',
      'x',
      { Schedules: { Schedule: [{ Frequency: { Interval: [{ StartTime: '02:00', EndTime: '23:30' }] } }] }, Info: { Description: 'yes', Notes: '0755' } },
      ['first note', 'a note\nwith a line break'],
    );
    const text = renderManifestFile(m, '../../schemas/task.schema.json');
    const lines = text.split('\n');
    expect(lines[0]).toBe('# yaml-language-server: $schema=../../schemas/task.schema.json');
    expect(lines[1]).toBe('# Note: first note');
    expect(lines[2]).toBe('# Note: a note with a line break');
    expect(text).toContain('StartTime: "02:00"');
    expect(text).toContain('Description: "yes"');
    expect(text).toContain('Notes: "0755"');
    expect(parse(text)).toEqual(m.document);
  });
});

describe('the $schema line', () => {
  const kinds = [manifest('Task', 'a'), manifest('ResourceGroupAcl', 'Finance/Operators'), manifest('FolderPermissions', '/A')];
  const schemaLine = (text: string) => text.split('\n')[0]!.replace('# yaml-language-server: $schema=', '');

  it('is the published URL of the schema of the kind when the project has no local mftops: never a path on this machine', () => {
    const files = planImportFiles(kinds, join(testdir({}), 'manifests'));
    expect(files.map((f) => schemaLine(f.text))).toEqual([
      'https://mftops.dev/schemas/task.schema.json',
      'https://mftops.dev/schemas/resource-group-acl.schema.json',
      'https://mftops.dev/schemas/folder-permissions.schema.json',
    ]);
    for (const f of files) expect(f.text).not.toContain(findSchemasDir());
  });

  it('is the relative path into node_modules/mftops/schemas/ when the project installed mftops at or above the output folder', () => {
    const project = testdir({
      'node_modules/mftops/schemas/task.schema.json': '{}',
      'node_modules/mftops/schemas/resource-group-acl.schema.json': '{}',
      'node_modules/mftops/schemas/folder-permissions.schema.json': '{}',
    });
    const nested = planImportFiles(kinds, join(project, 'mft', 'manifests'));
    expect(nested.map((f) => schemaLine(f.text))).toEqual([
      '../../../node_modules/mftops/schemas/task.schema.json',
      '../../../node_modules/mftops/schemas/resource-group-acl.schema.json',
      '../../../node_modules/mftops/schemas/folder-permissions.schema.json',
    ]);
    for (const f of nested) {
      const ref = schemaLine(f.text);
      expect(isAbsolute(ref)).toBe(false);
      // The path leads to the file from where the manifest is written.
      expect(existsSync(join(f.path, '..', ref))).toBe(true);
    }
    expect(schemaLine(planImportFiles([manifest('Task', 'a')], project)[0]!.text)).toBe('../node_modules/mftops/schemas/task.schema.json');
  });
});

describe('writing', () => {
  it('refuses to overwrite any file without force, and then writes nothing at all', () => {
    const out = testdir({ 'tasks/b.yaml': 'mine\n' });
    const files = planImportFiles([manifest('Task', 'a'), manifest('Task', 'b'), manifest('Task', 'c')], out);
    expect(() => writeImportFiles(files, { force: false })).toThrow('refusing to overwrite tasks/b.yaml (use --force)');
    expect(readFileSync(join(out, 'tasks', 'b.yaml'), 'utf8')).toBe('mine\n');
    expect(existsSync(join(out, 'tasks', 'a.yaml'))).toBe(false);
    expect(existsSync(join(out, 'tasks', 'c.yaml'))).toBe(false);
  });

  it('writes all or none: a file that cannot be written leaves no file and no new folder behind', () => {
    // folders/ is a file here, so the FolderPermissions manifest cannot be written (as a full disk
    // would stop it): the task written before it must not stay, nor the folders made for it.
    const out = testdir({ folders: 'not a folder\n' });
    const files = planImportFiles([manifest('Task', 'a'), manifest('FolderPermissions', '/A/B'), manifest('Task', 'c')], out);
    for (const force of [false, true]) {
      expect(() => writeImportFiles(files, { force })).toThrow(/cannot write .*folders.*; nothing was written/);
      expect(existsSync(join(out, 'tasks')), `force ${force}`).toBe(false);
      expect(readdirSync(out)).toEqual(['folders']);
    }
  });

  it('overwrites with force, and creates the folders it needs', () => {
    const out = testdir({});
    mkdirSync(join(out, 'tasks'));
    writeFileSync(join(out, 'tasks', 'b.yaml'), 'mine\n');
    const files = planImportFiles([manifest('Task', 'b'), manifest('FolderPermissions', '/A/B')], join(out, 'new', 'place'));
    writeImportFiles(files, { force: true });
    for (const f of files) expect(readFileSync(f.path, 'utf8')).toBe(f.text);
    writeImportFiles(planImportFiles([manifest('Task', 'b')], out), { force: true });
    expect(readFileSync(join(out, 'tasks', 'b.yaml'), 'utf8')).toMatch(/^# yaml-language-server/);
  });
});
