import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { testdir } from './testdir.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/manifests', import.meta.url));

/** A project whose mftops.yaml points at `emulator` with its manifests under manifests/, holding `files` besides (path → content). */
export function emulatorWorkdir(emulator: RunningEmulator, files: Record<string, string> = {}): string {
  return testdir({ 'mftops.yaml': emulatorConfigYaml({ ...emulator, manifests: ['manifests'] }), ...files });
}

/**
 * The example manifests (examples/manifests) copied under `dir`/manifests; with `auditSecret`, also
 * the secret file the example task reads (git holds none), as a checkout where plan runs has it.
 */
export function copyExampleManifests(dir: string, auditSecret?: string): void {
  cpSync(EXAMPLES, join(dir, 'manifests'), { recursive: true });
  if (auditSecret === undefined) return;
  mkdirSync(join(dir, 'manifests/tasks/secrets'));
  writeFileSync(join(dir, 'manifests/tasks/secrets/finance-share-audit.txt'), auditSecret);
}

/** A project of the example manifests against `emulator`, with one policy file and the secret file the example task reads. */
export function exampleWorkdir(emulator: RunningEmulator, policy: string, auditSecret = 'audit-share-test'): string {
  const dir = emulatorWorkdir(emulator, { 'manifests/policies/policy.yaml': policy });
  copyExampleManifests(dir, auditSecret);
  return dir;
}
