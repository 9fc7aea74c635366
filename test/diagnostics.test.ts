import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveServices } from '../src/app/environment.js';
import { planEnvironment } from '../src/app/plan.js';
import { loadConfig } from '../src/config/load-config.js';
import { DIAGNOSTIC_EXPLANATIONS, type DiagnosticExample } from '../src/diagnostic-catalogue.js';
import { DIAGNOSTIC_CODES, type DiagnosticCode } from '../src/diagnostics.js';
import { emulatorConfigYaml } from '../src/emulator/config-for.js';
import type { RunningEmulator } from '../src/emulator/index.js';
import { diagnosticsOf } from '../src/errors.js';
import { silentLogger } from '../src/log.js';
import { loadManifests } from '../src/manifest/load.js';
import { runCli } from './helpers/run-cli.js';
import { testdir } from './helpers/testdir.js';
import { startSeededEmulator } from './integration/helpers.js';
import { PASSWORDS } from './drift/helpers.js';

const CODES = Object.keys(DIAGNOSTIC_CODES) as DiagnosticCode[];
/** A manifest with nothing wrong, for the projects command examples run in. */
const FINE = 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Payroll to bank }\nspec:\n  Group: [Finance]\n';

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());

/** What each command example's `setup` says must be there, made. */
const SETUP: Partial<Record<DiagnosticCode, Record<string, string | Buffer>>> = {
  MF004: { 'export.yaml': Buffer.alloc(12 * 1024 * 1024, 'a: 1\n') },
  MF008: {
    'mftops.yaml':
      'apiVersion: mftops/v1\nkind: Config\nlimits: { manifestMegabytes: 1 }\nenvironments:\n  lab:\n    automation: { url: http://127.0.0.1:9/automation, username: admin, password: "${env:MFT_AUTOMATION_PASSWORD}" }\n    manifests: [manifests]\n',
    'manifests/generated.yaml': `${FINE}#${'x'.repeat(1_200_000)}\n`,
  },
  MF005: { 'notes.yaml': Buffer.from(`\ufeff${FINE}`, 'utf16le') },
  MF312: {
    'manifests/described.yaml':
      'apiVersion: mftops/v1\nkind: Policy\nmetadata: { name: tasks-described }\nspec:\n  severity: deny\n  match: { kinds: [Task] }\n  validations:\n    - expression: has(object.spec.Info)\n      message: every task has a description\n',
  },
  MF322: {
    'manifests/staging.yaml': 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Staging only, environments: [stagin] }\nspec:\n  Group: [Finance]\n',
  },
  MF325: {
    'manifests/leak.yaml':
      'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Leak }\nspec:\n  Group: [Finance]\n  steps:\n    - Destination: { Host: bank-as2, Path: /in, Password: "${file:/etc/hostname}" }\n',
  },
  MF326: {
    'manifests/leak.yaml':
      'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Leak }\nspec:\n  Group: [Finance]\n  steps:\n    - Destination: { Host: bank-as2, Path: /in, Password: "${env:MFT_AUTOMATION_PASSWORD}" }\n',
  },
  MF323: {
    'manifests/patch.yaml':
      'apiVersion: mftops/v1\nkind: Patch\nmetadata: { name: fix, environments: [lab] }\nspec:\n  target: { kind: Task, name: Payroll to bnak }\n  patch: { Active: 0 }\n',
  },
};

/** Lines each command example's `setup` says the environment of mftops.yaml has. */
const ENVIRONMENT_LINES: Partial<Record<DiagnosticCode, string>> = {
  MF413: '    drift: { ignore: [{ address: "Task/Payrol to bank" }] }\n',
  MF420: '    privilegedAccounts: { allowUnmanaged: [svc-gone] }\n',
};

/** The codes an example produces, run the way its `in` says. */
async function codesOf(code: DiagnosticCode, example: DiagnosticExample): Promise<string[]> {
  switch (example.in) {
    case 'manifest': {
      const dir = testdir({ 'example.yaml': example.text });
      return (await loadManifests(['example.yaml'], { cwd: dir })).diagnostics.map((d) => d.code);
    }
    case 'config': {
      const dir = testdir({ 'mftops.yaml': example.text });
      try {
        const config = loadConfig('mftops.yaml', dir);
        for (const env of config.environments.values()) resolveServices(config, env, { env: {} });
        return [];
      } catch (err) {
        return diagnosticsOf(err).map((d) => d.code);
      }
    }
    case 'plan': {
      const services = example.services ?? ['automation', 'transfer'];
      const dir = testdir({
        'mftops.yaml': emulatorConfigYaml({
          ...(services.includes('automation') ? { automationUrl: emulator.automationUrl } : {}),
          ...(services.includes('transfer') ? { transferUrl: emulator.transferUrl } : {}),
          manifests: ['manifests'],
          ...(example.transferHosts ? { transferHosts: example.transferHosts } : {}),
        }),
        'manifests/example.yaml': example.text,
      });
      // The manifest itself is valid: only the servers make it wrong.
      expect((await loadManifests(['manifests'], { cwd: dir })).diagnostics, code).toEqual([]);
      const result = await planEnvironment({}, { cwd: dir, env: PASSWORDS, logger: silentLogger, emit: () => {} });
      return result.diagnostics.diagnostics.map((d) => d.code);
    }
    case 'command': {
      const dir = testdir({
        'mftops.yaml':
          emulatorConfigYaml({ automationUrl: emulator.automationUrl, transferUrl: emulator.transferUrl, manifests: ['manifests'] }) +
          (ENVIRONMENT_LINES[code] ?? ''),
        'manifests/fine.yaml': FINE,
        ...SETUP[code],
      });
      const r = await runCli(splitCommand(example.command), { cwd: dir, env: PASSWORDS });
      return [...`${r.stdout}\n${r.stderr}`.matchAll(/\b(MF\d{3})\b/g)].map((m) => m[1]!);
    }
    default: {
      const never: never = example;
      throw new Error(`unknown example ${JSON.stringify(never)}`);
    }
  }
}

/** `mftops plan --target "Task/x y"` → `['plan', '--target', 'Task/x y']`. */
function splitCommand(command: string): string[] {
  const words = [...command.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
  expect(words[0]).toBe('mftops');
  return words.slice(1);
}

describe('the explanation of every diagnostic code', () => {
  it('exists for every code of the table, and for nothing else', () => {
    expect(Object.keys(DIAGNOSTIC_EXPLANATIONS).sort()).toEqual([...CODES].sort());
    for (const code of CODES) {
      const e = DIAGNOSTIC_EXPLANATIONS[code];
      expect(e.meaning, code).toMatch(/^\S.*[.)]$/s);
      expect(e.fix, code).toMatch(/^\S.*[.)]$/s);
    }
  });

  it.each(CODES)('%s: the example produces the code, and no other', async (code) => {
    expect(new Set(await codesOf(code, DIAGNOSTIC_EXPLANATIONS[code].example))).toEqual(new Set([code]));
  });
});
