import { installCrashGuard } from '../app/crash-guard.js';
import { failOnCrash, runAction } from './run-action.js';
import type { Runner } from './workflow-commands.js';
import { createFileRunner } from './workflow-commands.js';

/**
 * The Action's entry point (`action.yml` runs the bundle of this file). The step fails only on an
 * error (exit code 1); changes and drift (2) are success, reported in the `exitcode` output. A
 * rejection nobody handled or an exception nobody caught fails the step the same way (`::error`,
 * lock released, tokens revoked, exit 1), never with Node's stack trace.
 */
const write = (text: string): void => void process.stdout.write(text);
const files = createFileRunner(process.env, write);
// The errors already annotated: the guard does not annotate an unhandled copy of one again.
const annotated = new Set<string>();
const runner: Runner = {
  ...files,
  annotate: (level, message, place) => {
    if (level === 'error') annotated.add(message);
    files.annotate(level, message, place);
  },
};
installCrashGuard({ report: (err) => failOnCrash(runner, err, annotated) });
const code = await runAction({ env: process.env, cwd: process.cwd(), runner, log: write });
process.exitCode = code === 1 ? 1 : 0;
