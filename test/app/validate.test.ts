import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateManifests } from '../../src/app/validate.js';
import { ConfigError } from '../../src/errors.js';
import { testdir } from '../helpers/testdir.js';
import { recordingContext } from './helpers.js';

const GOOD = 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Good }\nspec: { Active: 1 }\n';
const BAD = 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Bad }\nspec:\n  Active: 1\n  steps:\n    - Source: { Host: h, RetryCount: 40000 }\n';
const CONFIG = [
  'apiVersion: mftops/v1',
  'kind: Config',
  'environments:',
  '  lab:',
  '    automation: { url: "http://127.0.0.1:9/automation", username: admin, password: "${env:UNSET_PASSWORD}" }',
  '    manifests: [lab]',
  '  prod:',
  '    automation: { url: "http://127.0.0.1:9/automation", username: admin, password: "${env:UNSET_PASSWORD}" }',
  '    manifests: [prod]',
  '',
].join('\n');

describe('validateManifests', () => {
  it('checks the paths given without a configuration file: every problem with its place, invalid on an error', async () => {
    const dir = testdir({ 'm/good.yaml': GOOD, 'm/bad.yaml': BAD });
    const ctx = recordingContext(dir);
    const report = await validateManifests({ paths: ['m'] }, ctx);
    expect(report.manifestCount).toBe(1); // the manifests that loaded
    expect(report.diagnostics.map((d) => [d.file, d.line, d.col, d.severity, d.code])).toEqual([[join(dir, 'm', 'bad.yaml'), 7, 38, 'error', 'MF205']]);
    expect(ctx.events).toEqual([]);
  });

  it('names a path that cannot be read as it was given, and still checks the others', async () => {
    const dir = testdir({ 'ok.yaml': GOOD });
    const report = await validateManifests({ paths: ['missing.yaml', 'ok.yaml'] }, recordingContext(dir));
    expect(report.manifestCount).toBe(1);
    expect(report.diagnostics.map((d) => [d.code, d.summary])).toEqual([['MF007', 'cannot read missing.yaml: no such file or folder']]);
  });

  it('reports warnings alone when nothing is wrong', async () => {
    const dir = testdir({ 'w.yaml': GOOD.replace('spec: { Active: 1 }', 'spec: { Parameters: { DbPassword: plain } }') });
    const report = await validateManifests({ paths: [join(dir, 'w.yaml')] }, recordingContext(dir));
    expect(report.manifestCount).toBe(1);
    expect(report.diagnostics.map((d) => [d.severity, d.code])).toEqual([['warning', 'MF310']]);
  });

  it("without paths checks the chosen environment's manifests, and needs no credential to do so", async () => {
    const dir = testdir({ 'mftops.yaml': CONFIG, 'lab/good.yaml': GOOD, 'prod/bad.yaml': BAD });
    const lab = await validateManifests({ environment: 'lab' }, recordingContext(dir));
    expect(lab).toEqual({ diagnostics: [], manifestCount: 1 });
    const prod = await validateManifests({ environment: 'prod' }, recordingContext(dir));
    expect(prod.diagnostics.map((d) => [d.file, d.severity])).toEqual([[join(dir, 'prod', 'bad.yaml'), 'error']]);
  });

  it('reads another configuration file when one is named', async () => {
    const dir = testdir({ 'config/other.yaml': CONFIG.replace('manifests: [lab]', 'manifests: [../lab]'), 'lab/bad.yaml': BAD });
    const report = await validateManifests({ configFile: 'config/other.yaml', environment: 'lab' }, recordingContext(dir));
    expect(report.diagnostics.map((d) => [d.file, d.severity])).toEqual([[join(dir, 'lab', 'bad.yaml'), 'error']]);
  });

  it('refuses to guess with neither paths nor a configuration file', async () => {
    const dir = testdir({ 'stray.yaml': BAD });
    const err = await validateManifests({}, recordingContext(dir)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toBe('no manifest paths given and no mftops.yaml here: run mftops validate PATH… or pass --config FILE');
  });
});
