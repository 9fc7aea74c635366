import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';
import { startSeededEmulator } from '../helpers/emulator-test-api.js';

/**
 * The README's "Try it by hand against the emulator", command by command, in a copy of the
 * repository's examples: both emulators (on free ports instead of 8080 and 8081), the `export`
 * lines and the secret file the README writes, then status, validate, plan and diff-env. None
 * of them may warn: a warning there is one the demo would hide.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const block = /### Try it by hand against the emulator\n\n```sh\n([\s\S]*?)```/.exec(README)?.[1] ?? '';

/** The README's `export` lines, as the variables they set. */
function exportedVariables(): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of block.split('\n').filter((l) => l.startsWith('export '))) {
    for (const m of line.matchAll(/([A-Z_]+)='([^']*)'/g)) vars[m[1]!] = m[2]!;
  }
  return vars;
}

let production: RunningEmulator;
let staging: RunningEmulator;
beforeAll(async () => {
  production = await startSeededEmulator();
  staging = await startSeededEmulator({ estate: 'staging' });
});
afterAll(async () => {
  await production.close();
  await staging.close();
});

describe('README: Try it by hand against the emulator', () => {
  it('status, validate, plan and diff-env on the examples exit as they should and print no warning', async () => {
    const commands = block.split('\n').filter((l) => l.startsWith('node bin/mftops.js ') && !l.includes(' emulator '));
    expect(commands).toEqual([
      'node bin/mftops.js status --config examples/mftops.yaml --env production',
      'node bin/mftops.js validate examples/manifests examples/policies',
      'node bin/mftops.js plan --config examples/mftops.yaml --env staging',
      'node bin/mftops.js diff-env staging production --config examples/mftops.yaml',
    ]);
    const env = exportedVariables();
    expect(Object.keys(env).sort()).toEqual(['ACME_SFTP_PASSWORD', 'MFT_AUTOMATION_PASSWORD', 'MFT_TRANSFER_PASSWORD']);
    // A clone: the examples, with the emulators on their ports and the secret file the README writes.
    const dir = testdir({});
    cpSync(join(ROOT, 'examples'), join(dir, 'examples'), { recursive: true });
    const config = join(dir, 'examples/mftops.yaml');
    writeFileSync(config, readFileSync(config, 'utf8').replaceAll('http://127.0.0.1:8080', production.url).replaceAll('http://127.0.0.1:8081', staging.url));
    const secret = /echo '([^']*)' > (examples\/\S+)/.exec(block);
    expect(secret?.[2]).toBe('examples/manifests/tasks/secrets/finance-share-audit.txt');
    mkdirSync(join(dir, 'examples/manifests/tasks/secrets'), { recursive: true });
    writeFileSync(join(dir, secret![2]!), `${secret![1]}\n`);

    const expected = [0, 0, 0, 2];
    for (const [i, command] of commands.entries()) {
      const r = await runCli(command.split(' ').slice(2), { cwd: dir, env });
      expect({ command, code: r.code }).toEqual({ command, code: expected[i] });
      expect({ command, warnings: `${r.stdout}${r.stderr}`.split('\n').filter((l) => /\bwarn(ing)?s?\b/i.test(l)) }).toEqual({ command, warnings: [] });
    }
  });
});
