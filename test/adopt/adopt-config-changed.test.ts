import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseDocument } from 'yaml';
import { adoptDrift } from '../../src/app/adopt-drift.js';
import type { AppEvent } from '../../src/app/events.js';
import { createLogger } from '../../src/log.js';
import { CREDENTIALS, checkout } from '../action/harness.js';
import { editTaskByHand, startSeededEmulator } from '../helpers/emulator-test-api.js';

/**
 * `drift --adopt` removes spent `drift.ignore` rules from mftops.yaml by their place in the list:
 * a file edited while the servers were read is refused, never edited at the wrong place.
 */

function context(cwd: string, onEvent: (e: AppEvent) => void = () => {}) {
  return { cwd, env: { ...CREDENTIALS }, logger: createLogger('quiet', () => {}), emit: onEvent };
}

function withIgnore(text: string, rules: readonly Record<string, string>[]): string {
  const doc = parseDocument(text);
  doc.setIn(['environments', 'production', 'drift'], { ignore: rules });
  return doc.toString();
}

describe('drift --adopt and a mftops.yaml edited meanwhile', () => {
  it('refuses, writing nothing, when mftops.yaml changed while drift read the servers', { timeout: 120_000 }, async () => {
    const emulator = await startSeededEmulator();
    onTestFinished(() => emulator.close());
    const mft = join(checkout(emulator, 'production'), 'mft');
    const configFile = join(mft, 'mftops.yaml');
    expect((await adoptDrift({ configFile, addresses: [], dryRun: false }, context(mft))).status).toBe('adopted');
    editTaskByHand(emulator, { name: 'Payroll to bank' }, (t) => {
      (t.Info as Record<string, unknown>).Description = 'changed by hand';
    });
    const loaded = withIgnore(readFileSync(configFile, 'utf8'), [{ address: 'Task/Payroll to bank' }]);
    writeFileSync(configFile, loaded);
    // A colleague inserts a rule before it while the servers are read.
    const meanwhile = withIgnore(loaded, [{ address: 'Task/Acme outbound' }, { address: 'Task/Payroll to bank' }]);
    let edited = false;
    const onEvent = (): void => {
      if (edited) return;
      edited = true;
      writeFileSync(configFile, meanwhile);
    };
    const manifestsBefore = readFileSync(join(mft, 'manifests', 'tasks', 'finance.yaml'), 'utf8');
    await expect(adoptDrift({ configFile, addresses: ['Task/Payroll to bank'], dryRun: false }, context(mft, onEvent))).rejects.toThrow(
      /^mftops\.yaml changed while drift was read; nothing was written: run drift --adopt again$/,
    );
    expect(edited).toBe(true);
    expect(readFileSync(configFile, 'utf8')).toBe(meanwhile);
    expect(readFileSync(join(mft, 'manifests', 'tasks', 'finance.yaml'), 'utf8')).toBe(manifestsBefore);
  });
});
