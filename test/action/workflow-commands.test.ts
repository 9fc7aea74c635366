import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFileRunner, formatAnnotation, formatOutput, STEP_SUMMARY_LIMIT_BYTES } from '../../src/action/workflow-commands.js';
import { testdir } from '../helpers/testdir.js';
import { parseOutputFile } from './harness.js';

/** The runner's formats: what GitHub reads back must be exactly what the step meant. */

describe('annotations', () => {
  it('escapes the message so it stays one command, and properties so they cannot add another', () => {
    expect(formatAnnotation('error', '100% bad\r\nsecond line', { file: 'a,b:c.yaml', line: 3, col: 7, title: 'MF201' })).toBe(
      '::error file=a%2Cb%3Ac.yaml,line=3,col=7,title=MF201::100%25 bad%0D%0Asecond line\n',
    );
    expect(formatAnnotation('warning', 'plain')).toBe('::warning::plain\n');
  });
});

describe('outputs', () => {
  it('writes heredoc blocks with a fresh random delimiter, so a value cannot forge another output', () => {
    const hostile = 'line one\nEOF\nhas-changes<<EOF\nfalse\nEOF';
    const a = formatOutput('summary', hostile);
    const b = formatOutput('summary', hostile);
    expect(a).not.toBe(b);
    expect(parseOutputFile(a + formatOutput('has-changes', 'true'))).toEqual({ summary: hostile, 'has-changes': 'true' });
  });

  it('appends outputs to GITHUB_OUTPUT and the summary to GITHUB_STEP_SUMMARY, refusing to go over 1 MiB', () => {
    const dir = testdir({ out: 'earlier=1\n', summary: '' });
    let log = '';
    const runner = createFileRunner({ GITHUB_OUTPUT: join(dir, 'out'), GITHUB_STEP_SUMMARY: join(dir, 'summary') }, (t) => (log += t));
    runner.setOutput('exitcode', '2');
    runner.setOutput('summary', 'Plan: 1 to create.');
    expect(parseOutputFile(readFileSync(join(dir, 'out'), 'utf8'))).toEqual({ earlier: '1', exitcode: '2', summary: 'Plan: 1 to create.' });

    expect(runner.appendSummary('## Plan\n')).toBe(true);
    expect(runner.summaryRoom()).toBe(STEP_SUMMARY_LIMIT_BYTES - 8);
    // 3 bytes per character: measured in bytes, not characters.
    const tooBig = '✓'.repeat(Math.floor(STEP_SUMMARY_LIMIT_BYTES / 3));
    expect(runner.appendSummary(tooBig)).toBe(false);
    expect(readFileSync(join(dir, 'summary'), 'utf8')).toBe('## Plan\n');
    expect(log).toBe('');
  });

  it('groups log lines and never loses output outside a runner', async () => {
    let log = '';
    const runner = createFileRunner({}, (t) => (log += t));
    runner.setOutput('exitcode', '0');
    expect(runner.appendSummary('x')).toBe(false);
    await runner.group('Plan: 1 to create', async () => runner.log('+ Task/x'));
    expect(log).toBe('output exitcode=0\n::group::Plan: 1 to create\n+ Task/x\n::endgroup::\n');
  });
});
