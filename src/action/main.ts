import { runAction } from './run-action.js';
import { createFileRunner } from './workflow-commands.js';

/**
 * The Action's entry point (`action.yml` runs the bundle of this file). The step fails only on an
 * error (exit code 1); changes and drift (2) are success, reported in the `exitcode` output.
 */
const write = (text: string): void => void process.stdout.write(text);
const code = await runAction({ env: process.env, cwd: process.cwd(), runner: createFileRunner(process.env, write), log: write });
process.exitCode = code === 1 ? 1 : 0;
