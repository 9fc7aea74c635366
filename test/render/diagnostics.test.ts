import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/diagnostics.js';
import { escapeData, escapeProperty, renderDiagnostics, renderDiagnosticsText, summaryLine } from '../../src/render/diagnostics.js';

const GOLDEN = join(import.meta.dirname, 'diagnostics-golden');
const CWD = '/work/repo';

const DIAGNOSTICS: Diagnostic[] = [
  // A problem of the command line: an address, no file.
  { severity: 'error', code: 'MF409', summary: '--target names nothing in this plan — did you mean `Task/Payroll to bank`?', address: 'Task/Payroll, to bnak' },
  // A path that cannot be read: the file, no line.
  { severity: 'error', code: 'MF007', summary: 'cannot read 100% of it: gone, really', file: '/elsewhere/outside.yaml' },
  {
    severity: 'warning',
    code: 'MF310',
    summary: 'parameter `ApiToken` looks like a secret but holds a literal value',
    hint: 'use a ${env:NAME} or ${file:PATH} reference',
    file: '/work/repo/manifests/odd,name:v2.yaml',
    line: 7,
    col: 7,
  },
  {
    severity: 'error',
    code: 'MF205',
    summary: '`RetryCount` must be at most 32000, not 40000',
    file: '/work/repo/manifests/tasks.yaml',
    line: 12,
    col: 21,
    endLine: 12,
    endCol: 26,
  },
  {
    severity: 'error',
    code: 'MF301',
    summary: 'Task `Payroll to bank` is defined twice',
    detail: 'a task is known by its name\non the automation server',
    hint: 'one object, one document: merge the two or rename one',
    related: { message: 'first defined', file: '/work/repo/manifests/tasks.yaml', line: 4, col: 9 },
    file: '/work/repo/manifests/tasks.yaml',
    line: 30,
    col: 9,
  },
];
const REPORT = { diagnostics: DIAGNOSTICS, manifestCount: 7 };
const golden = (name: string) => readFileSync(join(GOLDEN, name), 'utf8');

describe('diagnostics renderers', () => {
  it('text matches its golden file', () => {
    expect(renderDiagnostics('text', REPORT, { cwd: CWD })).toBe(golden('report.txt'));
  });

  it('json matches its golden file: an mftops.validate document', () => {
    const out = renderDiagnostics('json', REPORT, { cwd: CWD });
    expect(out).toBe(golden('report.json'));
    expect(JSON.parse(out)).toMatchObject({ formatVersion: 1, kind: 'mftops.validate', valid: false, manifestCount: 7 });
  });

  it('github matches its golden file', () => {
    expect(renderDiagnostics('github', REPORT, { cwd: CWD })).toBe(golden('report.github.txt'));
  });

  it('colours the text output only when asked', () => {
    expect(renderDiagnosticsText(REPORT, { cwd: CWD, color: true })).toContain('\u001b[1m/elsewhere/outside.yaml\u001b[0m: \u001b[31;1merror MF007\u001b[0m');
    expect(renderDiagnosticsText(REPORT, { cwd: CWD, color: false })).not.toContain('\u001b[');
  });

  it('counts in the summary line', () => {
    expect(summaryLine({ diagnostics: [], manifestCount: 12 })).toBe('12 manifests valid');
    expect(summaryLine({ diagnostics: [], manifestCount: 1 })).toBe('1 manifest valid');
    expect(summaryLine({ diagnostics: [DIAGNOSTICS[2]!], manifestCount: 3 })).toBe('3 manifests valid, 1 warning');
    expect(summaryLine({ diagnostics: [DIAGNOSTICS[3]!], manifestCount: 0 })).toBe('1 error in 1 file');
    expect(summaryLine({ diagnostics: [DIAGNOSTICS[0]!], manifestCount: 0 })).toBe('1 error');
  });

  it('escapes workflow-command data and properties', () => {
    expect(escapeData('50% done\r\nnext: a, b')).toBe('50%25 done%0D%0Anext: a, b');
    expect(escapeProperty('a:b,c%\n')).toBe('a%3Ab%2Cc%25%0A');
  });
});
