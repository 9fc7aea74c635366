import { parseDocument, LineCounter } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import type { Diagnostic } from '../../src/diagnostics.js';
import { ConfigError } from '../../src/errors.js';
import { loadManifests } from '../../src/manifest/load.js';
import { createSourceMap } from '../../src/manifest/positions.js';
import { locateSchemaErrors } from '../../src/manifest/schema-errors.js';
import { getValidatorByFile } from '../../src/manifest/schemas.js';
import { positionOf } from '../helpers/position-of.js';
import { testdir } from '../helpers/testdir.js';

/** The same mistakes in a manifest and in mftops.yaml: a wrong value, a mapping without a required key, an unknown key, a repeat in a list. */
const MANIFEST = `apiVersion: mftops/v1
kind: FolderPermissions
metadata:
  name: /Finance
  previousNames: [/Old, /Other, /Old]
spec:
  mode: exakt
  createIfMissing:
    inherit: Always
  entries: []
`;
const CONFIG = `apiVersion: mftops/v1
kind: Config
environments:
  prod:
    prune: [Tasks, FolderPermissions, Tasks]
    transfer:
      url: https://transfer.example.com
      username: admin
      pasword: \${env:P}
`;

const place = (d: Diagnostic | undefined) => ({ line: d?.line, col: d?.col });

function configDiagnostics(text: string): readonly Diagnostic[] {
  const dir = testdir({ 'mftops.yaml': text });
  try {
    loadConfig('mftops.yaml', dir);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).diagnostics;
  }
  throw new Error('expected a ConfigError');
}

describe('one ajv-error mapper for manifests and mftops.yaml', () => {
  it('puts a wrong value at the value, a missing key at the mapping that lacks it, an unknown key at the key, a repeat at the repeat: in both files', async () => {
    const manifest = (await loadManifests(['m.yaml'], { cwd: testdir({ 'm.yaml': MANIFEST }) })).diagnostics;
    const config = configDiagnostics(CONFIG);

    expect(place(manifest.find((d) => d.code === 'MF204'))).toEqual(positionOf(MANIFEST, 'exakt'));
    expect(place(config.find((d) => d.code === 'MF505' && d.summary.includes('must be one of')))).toEqual(positionOf(CONFIG, 'Tasks'));

    expect(place(manifest.find((d) => d.code === 'MF202'))).toEqual(positionOf(MANIFEST, 'createIfMissing'));
    expect(place(config.find((d) => d.code === 'MF504'))).toEqual(positionOf(CONFIG, 'transfer'));

    expect(place(manifest.find((d) => d.code === 'MF201'))).toEqual(positionOf(MANIFEST, 'inherit'));
    expect(place(config.find((d) => d.code === 'MF503'))).toEqual(positionOf(CONFIG, 'pasword'));

    expect(place(manifest.find((d) => d.code === 'MF207'))).toEqual(positionOf(MANIFEST, '/Old]'));
    expect(place(config.find((d) => d.code === 'MF505' && d.summary.includes('twice')))).toEqual(positionOf(CONFIG, 'Tasks]'));
  });

  it('is one function: each loader reports its schema errors where locateSchemaErrors puts them', async () => {
    const located = (text: string, schema: string) => {
      const lineCounter = new LineCounter();
      const doc = parseDocument(text, { lineCounter });
      const validate = getValidatorByFile(schema);
      expect(validate(doc.toJS())).toBe(false);
      return locateSchemaErrors(validate.errors ?? [], createSourceMap(doc, lineCounter, 'x')).map((p) => ({ line: p.at.line, col: p.at.col }));
    };
    const byPlace = (a: { line?: number; col?: number }, b: { line?: number; col?: number }) => (a.line ?? 0) - (b.line ?? 0) || (a.col ?? 0) - (b.col ?? 0);
    // The schema's diagnostics (MF2xx); the rules after it find the repeated previous name too.
    const manifest = (await loadManifests(['m.yaml'], { cwd: testdir({ 'm.yaml': MANIFEST }) })).diagnostics.filter((d) => d.code.startsWith('MF2'));
    expect(manifest.map(place).sort(byPlace)).toEqual(located(MANIFEST, 'folder-permissions.schema.json').sort(byPlace));
    expect(configDiagnostics(CONFIG).map(place).sort(byPlace)).toEqual(located(CONFIG, 'config.schema.json').sort(byPlace));
  });
});
