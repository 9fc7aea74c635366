import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runApply } from '../../src/cli/commands/apply.js';
import type { ApplyCommandDeps, ApplyCommandOptions } from '../../src/cli/commands/apply.js';
import { captureIo, type GlobalOptions } from '../../src/cli/io.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { APPLY_ENV, applyWorkdir, writesOf } from '../apply/helpers.js';

/** The command in-process, with a terminal that answers `answer`. */
const g: GlobalOptions = { format: 'text', color: false, quiet: false, verbose: false };
const opts = (overrides: Partial<ApplyCommandOptions> = {}): ApplyCommandOptions => ({
  args: [],
  autoApprove: false,
  allowDelete: true,
  allowReplace: true,
  maxDeletes: '10',
  parallelism: '4',
  ...overrides,
});
function terminal(answer: string): ApplyCommandDeps & { questions: string[] } {
  const questions: string[] = [];
  return {
    canAsk: true,
    ask: async (q) => {
      questions.push(q);
      return answer;
    },
    signals: new EventEmitter(),
    exitNow: () => {
      throw new Error('exitNow must not be called');
    },
    questions,
  };
}

let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await startSeededEmulator();
});
afterEach(() => emulator.close());

it('on a terminal, shows the plan, asks naming the counts and the environment, and writes nothing unless the answer is exactly yes', async () => {
  const dir = applyWorkdir(emulator);
  const io = captureIo({ cwd: dir, env: APPLY_ENV, isTty: true });
  const deps = terminal('y');
  expect(await runApply(g, opts(), io, deps)).toBe(1);
  // As the plan's summary counts them (blocked changes are never written).
  expect(deps.questions).toEqual([`Apply 12 changes (3 create, 4 update, 1 replace, 4 delete) to environment "lab"? Only 'yes' is accepted: `]);
  expect(io.out()).toMatch(/^Plan: 3 to create, 4 to update, 1 to replace, 4 to delete, 0 blocked\. \d+ users? gains? access, \d+ loses? access\.$/m);
  expect(io.err()).toContain('Apply cancelled; nothing was written.');
  expect(writesOf(emulator)).toEqual([]);
});

it('applies after "yes", with manifest paths given on the command line', async () => {
  const dir = applyWorkdir(emulator, { prune: [] });
  const io = captureIo({ cwd: dir, env: APPLY_ENV, isTty: true });
  const deps = terminal('yes');
  expect(await runApply(g, opts({ args: ['manifests/acls.yaml'] }), io, deps)).toBe(0);
  expect(deps.questions).toEqual([`Apply 2 changes (1 create, 1 update, 0 delete) to environment "lab"? Only 'yes' is accepted: `]);
  expect(io.out()).toContain('Apply complete for environment "lab": 2 applied, 0 failed, 0 skipped.');
  expect(
    writesOf(emulator)
      .map((w) => w.split(' ')[0])
      .sort(),
  ).toEqual(['POST', 'PUT']);
});

it('does not ask when the plan would be refused anyway, nor when there is nothing to apply', async () => {
  const dir = applyWorkdir(emulator);
  const refused = terminal('yes');
  expect(await runApply(g, opts({ allowDelete: false }), captureIo({ cwd: dir, env: APPLY_ENV, isTty: true }), refused)).toBe(1);
  expect(refused.questions).toEqual([]);
  const { PAYROLL_API_KEY: _unset, ...withoutKey } = APPLY_ENV;
  const noSecret = terminal('yes');
  const io0 = captureIo({ cwd: dir, env: withoutKey, isTty: true });
  expect(await runApply(g, opts(), io0, noSecret)).toBe(1);
  expect(noSecret.questions).toEqual([]);
  expect(io0.out()).toContain('Apply refused; nothing was written:\n  - environment variable PAYROLL_API_KEY is not set');
  expect(writesOf(emulator)).toEqual([]);
  const nothing = terminal('yes');
  const narrow = applyWorkdir(emulator, { prune: [] });
  const io = captureIo({ cwd: narrow, env: APPLY_ENV, isTty: true });
  expect(await runApply(g, opts({ args: ['manifests/acls.yaml'] }), io, terminal('yes'))).toBe(0);
  expect(await runApply(g, opts({ args: ['manifests/acls.yaml'] }), io, nothing)).toBe(0);
  expect(nothing.questions).toEqual([]);
  expect(io.out()).toMatch(/Nothing to apply\.\n$/);
});

it('refuses a bad --parallelism or --max-deletes, and a plan file mixed with paths', async () => {
  const io = captureIo({ cwd: '/', env: {} });
  await expect(runApply(g, opts({ parallelism: '0' }), io, terminal('yes'))).rejects.toThrow('--parallelism must be a whole number from 1 to 64, not "0"');
  await expect(runApply(g, opts({ maxDeletes: '-1' }), io, terminal('yes'))).rejects.toThrow(
    '--max-deletes must be a whole number from 0 to 1000000, not "-1"',
  );
  await expect(runApply(g, opts({ args: ['plan.json', 'manifests'] }), io, terminal('yes'))).rejects.toThrow(
    'give one plan file (plan.json), or manifest paths, not both',
  );
});
