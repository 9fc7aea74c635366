#!/usr/bin/env node
/**
 * Prints the path of the Node 24 binary the Action's process tests run the bundle with
 * (`action.yml`: `runs.using: node24`), and exits 1 with a message when it cannot be had.
 *
 * The binary comes from the pinned `node` package of the npm registry through npx, into npm's
 * cache (not into node_modules, so no second `node` lands on the PATH of npm scripts). `.ci/run`
 * calls this once, fails when it cannot, and passes the path to the tests in MFTOPS_NODE24. The
 * tests never call it: `npm test` downloads nothing (without the variable this Node stands in,
 * test/action/harness.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';

const PACKAGE = 'node@24.21.0';

let answer = '';
try {
  // From a neutral folder: npx then installs the package, whatever the project around it holds.
  answer = execFileSync('npx', ['--yes', PACKAGE, '-p', 'process.execPath + " " + process.version'], {
    cwd: tmpdir(),
    encoding: 'utf8',
    timeout: 300_000,
    env: { ...process.env, npm_config_loglevel: 'error', npm_config_update_notifier: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
} catch (err) {
  const detail = String(err.stderr ?? err.message ?? err)
    .trim()
    .split('\n')
    .slice(-3)
    .join(' / ');
  process.stderr.write(`node24: cannot fetch ${PACKAGE} through npx: ${detail}\n`);
  process.exit(1);
}
const [path, version] = answer.trim().split('\n').pop()?.split(' ') ?? [];
if (path === undefined || !version?.startsWith('v24.') || !existsSync(path)) {
  process.stderr.write(`node24: npx ${PACKAGE} answered ${JSON.stringify(answer.trim())}, not a Node 24 binary\n`);
  process.exit(1);
}
process.stdout.write(`${path}\n`);
