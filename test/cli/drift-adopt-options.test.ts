import { expect, it } from 'vitest';
import { hasStackTrace, runCli } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';

// drift --adopt took --expiring-within and ignored it: an option that does nothing is refused.
it('drift --adopt refuses --expiring-within in one line, before reading anything', async () => {
  const r = await runCli(['drift', '--adopt', '--expiring-within', '10'], { cwd: testdir({}) });
  expect(r.code).toBe(1);
  expect(hasStackTrace(r.stderr)).toBe(false);
  expect(r.stderr.trim()).toBe('mftops: error: --expiring-within goes with drift, not drift --adopt (adoption lists no keys)');
});
