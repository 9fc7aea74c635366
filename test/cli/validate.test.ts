import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runValidate } from '../../src/cli/commands/validate.js';
import { captureIo } from '../../src/cli/io.js';
import { testdir } from '../helpers/testdir.js';

const ROOT = join(import.meta.dirname, '..', '..');
const GOOD = 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Good }\nspec: { Active: 1 }\n';
const BAD = 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Bad }\nspec:\n  Active: 1\n  steps:\n    - Source: { Host: h, RetryCount: 40000 }\n';

describe('mftops validate', () => {
  it('exits 0 on the examples and says how many manifests are valid', async () => {
    const dir = join(ROOT, 'examples', 'manifests');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml'));
    const documents = files.map((f) => readFileSync(join(dir, f), 'utf8').match(/^kind: /gm)?.length ?? 0).reduce((a, b) => a + b, 0);
    const io = captureIo({ cwd: ROOT });
    expect(await runValidate({ paths: ['examples/manifests'], format: 'text' }, io)).toBe(0);
    expect(io.out()).toBe(`${documents} manifests valid\n`);
    expect(io.err()).toBe('');
  });

  it('exits 1 and prints FILE:LINE:COL relative to the working folder', async () => {
    const dir = testdir({ 'm/good.yaml': GOOD, 'm/bad.yaml': BAD });
    const io = captureIo({ cwd: dir });
    expect(await runValidate({ paths: ['m'], format: 'text' }, io)).toBe(1);
    expect(io.out()).toBe('m/bad.yaml:7:38: error MF205: `RetryCount` must be at most 32000, not 40000\n1 error in 1 file\n');
  });

  it('reports a schema error and a rule error of one file in one run (StartTime 25:00 beside a misspelt field)', async () => {
    const text = [
      'apiVersion: mftops/v1',
      'kind: Task',
      'metadata: { name: Nightly }',
      'spec:',
      '  Activ: 1',
      '  Schedules:',
      '    Schedule:',
      '      - Frequency: { Interval: [{ StartTime: "25:00", EndTime: "01:00" }] }',
      '',
    ].join('\n');
    const dir = testdir({ 'tasks.yaml': text });
    const io = captureIo({ cwd: dir });
    expect(await runValidate({ paths: ['tasks.yaml'], format: 'text' }, io)).toBe(1);
    expect(io.out()).toBe(
      'tasks.yaml:5:3: error MF201: unknown field `Activ` in Task spec — did you mean `Active`?\n' +
        'tasks.yaml:8:46: error MF305: `StartTime` must be a time `HH:mm` between 00:00 and 23:59, not `25:00`\n' +
        '  hint: a time of day from 00:00 to 23:59, quoted: "02:00"\n' +
        '2 errors in 1 file\n',
    );
  });

  it('accepts absolute paths', async () => {
    const dir = testdir({ 'bad.yaml': BAD });
    const io = captureIo({ cwd: dir });
    expect(await runValidate({ paths: [join(dir, 'bad.yaml')], format: 'text' }, io)).toBe(1);
    expect(io.out()).toMatch(/^bad\.yaml:7:38: /);
  });

  it('prints an mftops.validate document with --format json', async () => {
    const dir = testdir({ 'bad.yaml': BAD, 'good.yaml': GOOD });
    const io = captureIo({ cwd: dir });
    expect(await runValidate({ paths: ['.'], format: 'json' }, io)).toBe(1);
    expect(JSON.parse(io.out())).toEqual({
      formatVersion: 1,
      kind: 'mftops.validate',
      valid: false,
      manifestCount: 1,
      diagnostics: [
        {
          severity: 'error',
          code: 'MF205',
          message: '`RetryCount` must be at most 32000, not 40000',
          file: 'bad.yaml',
          line: 7,
          col: 38,
          endLine: 7,
          endCol: 43,
        },
      ],
    });
  });

  it('prints a valid document with no diagnostics for valid manifests', async () => {
    const dir = testdir({ 'good.yaml': GOOD });
    const io = captureIo({ cwd: dir });
    expect(await runValidate({ paths: ['.'], format: 'json' }, io)).toBe(0);
    expect(JSON.parse(io.out())).toEqual({ formatVersion: 1, kind: 'mftops.validate', valid: true, manifestCount: 1, diagnostics: [] });
  });

  it('prints workflow annotations with --format github', async () => {
    const dir = testdir({ 'bad.yaml': BAD });
    const io = captureIo({ cwd: dir });
    expect(await runValidate({ paths: ['bad.yaml'], format: 'github' }, io)).toBe(1);
    expect(io.out().split('\n')[0]).toBe(
      '::error file=bad.yaml,line=7,col=38,endLine=7,endColumn=43,title=MF205::`RetryCount` must be at most 32000, not 40000',
    );
  });

  it('colours a terminal unless NO_COLOR is set', async () => {
    const dir = testdir({ 'bad.yaml': BAD });
    const tty = captureIo({ cwd: dir, isTty: true });
    await runValidate({ paths: ['bad.yaml'], format: 'text' }, tty);
    expect(tty.out()).toContain('\u001b[');
    const noColor = captureIo({ cwd: dir, isTty: true, env: { NO_COLOR: '1' } });
    await runValidate({ paths: ['bad.yaml'], format: 'text' }, noColor);
    expect(noColor.out()).not.toContain('\u001b[');
  });

  it('passes with warnings only', async () => {
    const dir = testdir({ 'w.yaml': GOOD.replace('spec: { Active: 1 }', 'spec: { Parameters: { DbPassword: plain } }') });
    const io = captureIo({ cwd: dir });
    expect(await runValidate({ paths: ['w.yaml'], format: 'text' }, io)).toBe(0);
    expect(io.out()).toMatch(/warning MF310: .*\n.*\n1 manifest valid, 1 warning\n$/);
  });

  it('fails without paths instead of guessing', async () => {
    const io = captureIo();
    expect(await runValidate({ paths: [], format: 'text' }, io)).toBe(1);
    expect(io.err()).toContain('no manifest paths given');
  });
});
