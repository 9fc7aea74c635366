import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEnvironment } from '../../src/app/apply.js';
import type { AppContext } from '../../src/app/context.js';
import { planEnvironment } from '../../src/app/plan.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { silentLogger } from '../../src/log.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';
import { copyExampleManifests, emulatorWorkdir } from '../helpers/example-workdir.js';
import { listWrites } from '../helpers/emulator-test-api.js';

const ENV = { MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password, MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password };

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());

/** The example manifests plus a task on a host the automation server does not have: an error only the live state shows. */
function workdirWithUnknownHost(): string {
  const dir = emulatorWorkdir(emulator);
  copyExampleManifests(dir);
  writeFileSync(
    join(dir, 'manifests', 'unknown.yaml'),
    'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Unknown host task }\nspec:\n  Group: [Partners]\n  steps:\n    - Source: { Host: acme-sftpp, Path: /x, FileMask: "*" }\n',
  );
  return dir;
}

function context(cwd: string): AppContext {
  return { cwd, env: ENV, logger: silentLogger, emit: () => {} };
}

describe('a plan with plan-time errors', () => {
  it('comes back errored beside its diagnostics, is not applyable, and is not saved', async () => {
    const dir = workdirWithUnknownHost();
    const result = await planEnvironment({ out: 'plan.json' }, context(dir));
    expect(result.status).toBe('invalid');
    expect(result.diagnostics.diagnostics.map((d) => `${d.severity} ${d.code}`)).toContain('error MF401');
    const plan = result.plan!;
    expect(plan).toMatchObject({ errored: true, applyable: false });
    // What could be planned is there; the object with the error is left out.
    expect(plan.changes.some((c) => c.action === 'create')).toBe(true);
    expect(plan.changes.map((c) => c.address)).not.toContain('Task/Unknown host task');
    expect(existsSync(join(dir, 'plan.json'))).toBe(false);
  });

  it('is never applied: apply reports the errors and writes nothing', async () => {
    const dir = workdirWithUnknownHost();
    emulator.resetRequestLog();
    const result = await applyEnvironment({}, context(dir));
    expect(result.status).toBe('invalid');
    expect(listWrites(emulator)).toEqual([]);
  });
});
