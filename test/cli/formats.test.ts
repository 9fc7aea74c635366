import type { Command } from 'commander';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { COMMAND_FORMATS } from '../../src/cli/formats.js';
import { captureIo } from '../../src/cli/io.js';
import { buildProgram, commandPath } from '../../src/cli/main.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { APPLY_ENV, applyWorkdir, writesOf } from '../apply/helpers.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { runCli } from '../helpers/run-cli.js';

/** The commands a user can run: the leaves of the program. */
function leaves(cmd: Command): Command[] {
  return cmd.commands.length === 0 ? [cmd] : cmd.commands.flatMap(leaves);
}

describe('the --format table', () => {
  it('has one row per command, and no row for a command that does not exist', () => {
    const paths = leaves(buildProgram(captureIo())).map(commandPath);
    expect(paths.sort()).toEqual(Object.keys(COMMAND_FORMATS).sort());
  });

  it('gives every command text, and json to every command but the emulator and the completion script', () => {
    for (const [command, formats] of Object.entries(COMMAND_FORMATS)) {
      expect(formats, command).toContain('text');
      if (command !== 'emulator' && command !== 'completion' && command !== '__environments') expect(formats, command).toContain('json');
    }
  });
});

describe('a --format a command does not print', () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startSeededEmulator();
  });
  afterAll(() => emulator.close());
  beforeEach(() => emulator.resetRequestLog());

  it.each([
    [['apply', '--auto-approve'], 'markdown', 'apply prints text, json or github, not markdown'],
    [['status'], 'markdown', 'status prints text or json, not markdown'],
    [['import', '--out', 'x'], 'markdown', 'import prints text or json, not markdown'],
    [['snapshot', 'save'], 'markdown', 'snapshot save prints text or json, not markdown'],
    [['snapshot', 'list'], 'github', 'snapshot list prints text or json, not github'],
    [['validate'], 'markdown', 'validate prints text, json or github, not markdown'],
  ])('%j --format %s is refused before the command starts: one line, exit 1, no request sent', async (args, format, message) => {
    const dir = applyWorkdir(emulator);
    const r = await runCli([...args, '--format', format], { cwd: dir, env: APPLY_ENV });
    expect([r.code, r.stdout, r.stderr]).toEqual([1, '', `mftops: error: ${message}\n`]);
    expect(emulator.requestLog()).toEqual([]);
    expect(writesOf(emulator)).toEqual([]);
  });

  it('--format github of plan and drift is annotations at the manifest lines, then the markdown', async () => {
    const dir = applyWorkdir(emulator);
    // The two runs are compared line for line, and the plan's schedules say "in N min" from now:
    // the clock is pinned so that a minute (or the due margin) passing between them changes nothing.
    const env = { ...APPLY_ENV, MFTOPS_NOW: '2026-11-27T12:00:30Z' };
    for (const command of ['plan', 'drift']) {
      const github = await runCli([command, '--format', 'github'], { cwd: dir, env });
      const markdown = await runCli([command, '--format', 'markdown'], { cwd: dir, env });
      const commands = github.stdout.split('\n').filter((l) => l.startsWith('::'));
      expect(commands.length, command).toBeGreaterThan(0);
      expect(
        commands.every((c) => /^::(notice|warning) (file=manifests\/[^,]+\.yaml,line=\d+,col=\d+,)?title=[^:]+::/.test(c)),
        command,
      ).toBe(true);
      expect(
        commands.some((c) => c.startsWith('::warning file=manifests/')),
        command,
      ).toBe(true);
      const stamp = (text: string) => text.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME');
      expect(stamp(github.stdout), command).toBe(stamp(`${commands.join('\n')}\n${markdown.stdout}`));
    }
  });
});
