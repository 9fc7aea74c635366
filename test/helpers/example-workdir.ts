import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { testdir } from './testdir.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/manifests', import.meta.url));

/**
 * A project of the example manifests (examples/manifests, under manifests/) against `emulator`,
 * with one policy file and the secret file the example task reads (git holds none), as a
 * checkout where plan runs has them.
 */
export function exampleWorkdir(emulator: RunningEmulator, policy: string, auditSecret = 'audit-share-test'): string {
  const dir = testdir({ 'mftops.yaml': emulatorConfigYaml({ ...emulator, manifests: ['manifests'] }), 'manifests/policies/policy.yaml': policy });
  cpSync(EXAMPLES, join(dir, 'manifests'), { recursive: true });
  mkdirSync(join(dir, 'manifests/tasks/secrets'));
  writeFileSync(join(dir, 'manifests/tasks/secrets/finance-share-audit.txt'), auditSecret);
  return dir;
}
