import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { describeCommand } from '../../src/cli/commands/completion.js';
import { captureIo } from '../../src/cli/io.js';
import { buildProgram } from '../../src/cli/main.js';
import { renderCompletion, SHELLS } from '../../src/render/completion.js';
import { runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';

/** Every command of a commander program with the words that lead to it, and its options' long flags (not the hidden `__environments` the scripts run). */
function commandsOf(cmd: Command, path: string[] = []): { path: string[]; options: string[] }[] {
  return cmd.commands
    .filter((c) => !c.name().startsWith('__'))
    .flatMap((c) => [{ path: [...path, c.name()], options: c.options.flatMap((o) => (o.long ? [o.long] : [])) }, ...commandsOf(c, [...path, c.name()])]);
}

/** What bash completes for a command line whose last word is at the cursor. */
function bashComplete(script: string, words: readonly string[], cwd: string): string[] {
  const file = join(cwd, 'completion.bash');
  writeFileSync(file, script);
  const array = words.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
  const out = execFileSync(
    'bash',
    ['--norc', '--noprofile', '-c', `source ${file}; COMP_WORDS=(${array}); COMP_CWORD=${words.length - 1}; _mftops; printf '%s\\n' "\${COMPREPLY[@]}"`],
    { cwd, encoding: 'utf8' },
  );
  return out.split('\n').filter((l) => l !== '');
}

const program = buildProgram(captureIo());
const BIN = fileURLToPath(new URL('../../bin/mftops.js', import.meta.url));

describe('mftops completion', () => {
  it.each(SHELLS)('%s: the script names every command, subcommand and option of the program', async (shell) => {
    const r = await runCli(['completion', shell]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const commands = commandsOf(program);
    expect(commands.map((c) => c.path.join(' '))).toEqual(expect.arrayContaining(['fmt', 'init', 'explain', 'completion', 'snapshot restore']));
    for (const c of commands) {
      expect(r.stdout, c.path.join(' ')).toContain(`'${c.path.join(' ')}'`);
      for (const o of c.options)
        expect(r.stdout, `${c.path.join(' ')} ${o}`).toMatch(new RegExp(`['\\s]${shell === 'fish' ? `-l '${o.slice(2)}'` : o}[\\s':]`));
    }
    for (const o of program.options) expect(r.stdout).toContain(shell === 'fish' ? `-l '${o.long!.slice(2)}'` : o.long!);
  });

  it('bash completes commands, subcommands, options, and the values of --format, --profile and --kind', async () => {
    const dir = testdir({ 'manifests/tasks.yaml': '' });
    const script = (await runCli(['completion', 'bash'])).stdout;
    const complete = (...words: string[]) => bashComplete(script, ['mftops', ...words], dir);
    expect(complete('')).toEqual(
      commandsOf(program)
        .filter((c) => c.path.length === 1)
        .map((c) => c.path[0])
        .concat('help'),
    );
    expect(complete('sn')).toEqual(['snapshot']);
    expect(complete('snapshot', '')).toEqual(['save', 'list', 'verify', 'diff', 'restore', 'help']);
    expect(complete('plan', '--ta')).toEqual(['--target']);
    expect(complete('dif')).toEqual(['diff-env']);
    expect(complete('diff-env', 'staging', 'prod', '--of')).toEqual(['--offline']);
    expect(complete('--env', 'prod', 'plan', '--o')).toEqual(['--out']);
    expect(complete('plan', '--format', '')).toEqual(['text', 'markdown', 'json', 'github']);
    expect(complete('drift', '--format', '=', 'm')).toEqual(['markdown']);
    expect(complete('emulator', '--profile', '')).toEqual(['current', 'legacy', 'divergent']);
    expect(complete('import', '--kind', '')).toEqual(['Task', 'ResourceGroupAcl', 'FolderPermissions', 'Group']);
    expect(complete('snapshot', 'restore', 'latest', '--service', '')).toEqual(['automation', 'transfer']);
    expect(complete('explain', 'MF50')).toEqual(['MF501', 'MF502', 'MF503', 'MF504', 'MF505', 'MF506', 'MF507', 'MF508']);
    expect(complete('completion', '')).toEqual(['bash', 'zsh', 'fish']);
    expect(complete('validate', 'man')).toEqual(['manifests']);
    expect(complete('status', '')).toEqual([]);
  });

  it("bash completes --env and diff-env's arguments with the environments of the configuration, not file names", async () => {
    const config = (envs: string[]) =>
      [
        'apiVersion: mftops/v1',
        'kind: Config',
        'environments:',
        ...envs.flatMap((e) => [`  ${e}:`, '    transfer: { url: "http://127.0.0.1:1", username: admin, password: "${env:PW}" }']),
        '',
      ].join('\n');
    const dir = testdir({ 'mftops.yaml': config(['staging', 'production']), 'other/mftops.yaml': config(['lab']), 'stale.txt': '' });
    // The script runs the program as the command line names it: a wrapper stands for the installed bin.
    const bin = join(dir, 'mftops-bin');
    writeFileSync(bin, `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o755 });
    const script = (await runCli(['completion', 'bash'])).stdout;
    const complete = (...words: string[]) => bashComplete(script, [bin, ...words], dir);
    expect(complete('plan', '--env', '')).toEqual(['staging', 'production']);
    expect(complete('--env', 'st')).toEqual(['staging']);
    expect(complete('diff-env', '')).toEqual(['staging', 'production']);
    expect(complete('diff-env', 'staging', 'p')).toEqual(['production']);
    expect(complete('--config', 'other/mftops.yaml', 'status', '--env', '')).toEqual(['lab']);
    expect(complete('--config', '=', 'other/mftops.yaml', 'status', '--env', '')).toEqual(['lab']);
    // No configuration here: nothing to offer, and no error in the command line.
    expect(bashComplete(script, [bin, 'plan', '--env', ''], testdir({}))).toEqual([]);
  });

  it('offers no hidden command: not as a command, not after help', () => {
    const described = describeCommand(program, '');
    expect(described.commands.map((c) => c.name)).not.toContain('__environments');
    expect(described.commands.find((c) => c.name === 'help')?.arguments).toEqual(described.commands.filter((c) => c.name !== 'help').map((c) => c.name));
  });

  it('completes a command added to the program, with no change to the completion code', () => {
    const dir = testdir({});
    const p = buildProgram(captureIo());
    p.command('frobnicate')
      .description('a command of tomorrow')
      .addOption(new Option('--level <level>', 'how much').choices(['low', 'high']));
    const script = renderCompletion('bash', describeCommand(p, ''));
    expect(bashComplete(script, ['mftops', 'frob'], dir)).toEqual(['frobnicate']);
    expect(bashComplete(script, ['mftops', 'frobnicate', '--level', ''], dir)).toEqual(['low', 'high']);
    for (const shell of ['zsh', 'fish'] as const) expect(renderCompletion(shell, describeCommand(p, ''))).toContain('frobnicate');
  });

  it('refuses a shell it writes no script for', async () => {
    const r = await runCli(['completion', 'powershell']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error: command-argument value 'powershell' is invalid for argument 'shell'. Allowed choices are bash, zsh, fish.");
  });
});
