import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VARIANT_NAMES, VARIANT_SWITCHES } from '../../src/emulator/index.js';
import type { EmulatorOptions, VariantSwitch } from '../../src/emulator/index.js';
import { manifestSet, serverState } from './arbitraries.js';
import { explain, leakedSecret, mftops, readTree, workspace } from './harness.js';
import type { CliRun } from './harness.js';

/**
 * The adoption path and the apply path, on generated server states, against an emulator that
 * answers in each reading the references allow (docs/server-variants.md):
 * - import (all kinds) → validate passes → plan shows no change → drift exits 0;
 * - generated manifests → apply → plan shows no change.
 * `FIDELITY_RUNS` sets the runs per property and single switch (default 3; the named sets get four
 * times as many; `npm run test:fidelity` runs more);
 * `FIDELITY_REPORT` names a file that gets one JSON line per reading and property.
 */

const RUNS = Number(process.env.FIDELITY_RUNS ?? 3);
const REPORT = process.env.FIDELITY_REPORT;

export interface Reading {
  readonly name: string;
  readonly options: Omit<EmulatorOptions, 'seed'>;
  readonly runs: number;
}

/** The three named sets, then every other value of every switch on its own. */
export const READINGS: readonly Reading[] = [
  { name: 'profile current', options: {}, runs: 4 * RUNS },
  { name: 'profile legacy', options: { profile: 'legacy' }, runs: 4 * RUNS },
  { name: 'profile divergent', options: { profile: 'divergent' }, runs: 4 * RUNS },
  // Not the hostile readings: a faithful client refuses them (their own tests say how).
  ...VARIANT_NAMES.filter((name) => !(VARIANT_SWITCHES[name] as VariantSwitch).hostile).flatMap((name) =>
    (VARIANT_SWITCHES[name] as VariantSwitch).values
      .slice(1)
      .map((value) => ({ name: `${name}=${value}`, options: { variants: { [name]: value } }, runs: RUNS })),
  ),
];

function expectCode(run: CliRun, code: number): void {
  if (run.code !== code) expect.fail(explain(run));
}

function report(reading: string, property: string, runs: number, ok: boolean): void {
  if (REPORT) appendFileSync(REPORT, `${JSON.stringify({ reading, property, runs, ok })}\n`);
}

async function check(reading: Reading, property: string, prop: fc.IAsyncPropertyWithHooks<never>): Promise<void> {
  let ok = false;
  try {
    await fc.assert(prop, { numRuns: reading.runs, endOnFailure: true });
    ok = true;
  } finally {
    report(reading.name, property, reading.runs, ok);
  }
}

describe.each(READINGS)('$name', (reading) => {
  it('import (all kinds) → validate → plan shows no change → drift in sync', async () => {
    await check(
      reading,
      'import',
      fc.asyncProperty(serverState, async (seed) => {
        const { emulator, dir } = await workspace(seed, reading.options);
        try {
          const imported = await mftops(['import', '--all', '--out', 'manifests'], dir, {});
          expectCode(imported, 0);
          const validated = await mftops(['validate'], dir, {});
          expectCode(validated, 0);
          const planned = await mftops(['plan', '--detailed-exitcode'], dir, {});
          expectCode(planned, 0);
          const drifted = await mftops(['drift'], dir, {});
          expectCode(drifted, 0);
          const outputs = [imported, validated, planned, drifted].map((r) => r.stdout + r.stderr).join('\n') + readTree(join(dir, 'manifests'));
          expect(leakedSecret(outputs)).toBe(false);
        } finally {
          await emulator.close();
        }
      }) as never,
    );
  });

  it('generated manifests → apply → plan shows no change', async () => {
    await check(
      reading,
      'apply',
      fc.asyncProperty(
        serverState.chain((seed) => fc.tuple(fc.constant(seed), manifestSet(seed))),
        async ([seed, set]) => {
          const { emulator, dir } = await workspace(seed, reading.options, set.files);
          try {
            const applied = await mftops(['apply', '--auto-approve', '--allow-replace'], dir, set.env);
            expectCode(applied, 0);
            const planned = await mftops(['plan', '--detailed-exitcode'], dir, set.env);
            expectCode(planned, 0);
            expect(leakedSecret(applied.stdout + applied.stderr + planned.stdout + planned.stderr)).toBe(false);
          } finally {
            await emulator.close();
          }
        },
      ) as never,
    );
  });
});
