import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startSeededEmulator } from '../integration/helpers.js';
import { checkout, CREDENTIALS, freshBundle, runActionProcess } from './harness.js';

/**
 * The Action is one bundled file with no worker script next to it: the bundle carries the policy
 * worker as a string (scripts/build-action.mjs). Run from a bundle of the sources as they are now
 * (the committed one is rebuilt after a merge), an expression that backtracks is stopped by the
 * time budget there too; before, the runner's process ran until killed (the harness's 25 s).
 */

const POLICY = [
  'apiVersion: mftops/v1',
  'kind: Policy',
  'metadata: { name: backtracks }',
  'spec:',
  '  severity: deny',
  '  match: { kinds: [Task] }',
  '  validations:',
  `    - expression: ${JSON.stringify("'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'.matches('^(a+)+$') && change.action != 'none'")}`,
  '      message: never reached',
  '',
].join('\n');

describe('the time budget of a policy evaluation in the Action', () => {
  it("plan with a backtracking matches() ends with the deny policy's error on the task, exit 1", async () => {
    const bundle = await freshBundle();
    const emulator = await startSeededEmulator();
    onTestFinished(() => emulator.close());
    const ws = checkout(emulator);
    writeFileSync(join(ws, 'mft/manifests/slow-policy.yaml'), POLICY);
    const plan = await runActionProcess({
      inputs: { command: 'plan', 'working-directory': 'mft', comment: 'false' },
      workspace: ws,
      eventName: 'pull_request',
      env: CREDENTIALS,
      bundle,
    });
    expect(plan.code).toBe(1);
    const errors = plan.stdout.split('\n').filter((l) => l.startsWith('::error') && l.includes('ran over its time budget'));
    // Annotated at the task (as every policy finding is), with the budget's reason.
    expect(errors[0]).toMatch(/^::error file=mft\/manifests\/tasks\/\w+\.yaml,line=\d+,col=\d+,title=policy backtracks::.*ran over its time budget of 1000 ms/);
  }, 120_000);
});
