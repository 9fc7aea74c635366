import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTaskManifest } from '../../bench/generate-manifests.js';
import { generatedTaskBody, mismatchedBodies, sampleIndices, taskRefsOf } from '../../bench/task-bodies.js';
import { readAndPlan } from '../../src/app/read-and-plan.js';
import { loadSeedFile, startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { JsonObject } from '../../src/emulator/json.js';
import { loadManifests } from '../../src/manifest/load.js';
import { Secret, parseSecretRef } from '../../src/secret.js';
import { createAutomationClient, toReadonlyAutomationClient } from '../../src/services/index.js';

/**
 * The bench seeds its estates with hand-written task bodies (issue 29); they must be what the
 * planner makes of the generated manifests, or the bench measures another estate than the one
 * its manifests describe. The bench checks a sample every run; this checks every shape.
 */
const SEED_FILE = join(import.meta.dirname, '../../examples/seed/emulator-seed.json');

const standIns = (x: unknown): unknown => {
  if (typeof x === 'string') return parseSecretRef(x) ? 'bench-secret-value' : x;
  if (Array.isArray(x)) return x.map(standIns);
  if (x !== null && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, standIns(v)]));
  return x;
};

describe('bench task bodies', () => {
  let emulator: RunningEmulator;
  let work: string;
  beforeAll(async () => {
    emulator = await startEmulator({ seed: loadSeedFile(SEED_FILE) });
    work = mkdtempSync(join(tmpdir(), 'mftops-task-bodies-'));
  });
  afterAll(async () => {
    await emulator.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('equal the planner’s bodies of the generated manifests, key order included', async () => {
    // 0..399 turns each of the generator's optional parts on and off in many combinations; the large
    // ones cover six-digit names and RetryCount's wrap at 32,001.
    const indices = [...sampleIndices(400, 400, 0), 32_000, 32_001, 99_999, 100_000, 230_768];
    const dir = join(work, 'manifests');
    mkdirSync(dir, { recursive: true });
    for (const i of indices) writeFileSync(join(dir, `task-${i}.yaml`), generateTaskManifest(i));
    const client = createAutomationClient({ url: emulator.automationUrl, username: 'admin', password: new Secret('admin-Pa55!seed') });
    try {
      const manifests = await loadManifests([dir], { cwd: work });
      const environment = { name: 'bench', manifests: [], scope: { taskGroups: [], folders: [] }, prune: [] };
      const result = await readAndPlan({ manifests, clients: { automation: toReadonlyAutomationClient(client) }, environment, servers: {}, cwd: work });
      const planned = new Map<number, JsonObject>();
      for (const c of result.plan?.changes ?? []) {
        if (c.action === 'create' && c.payload?.kind === 'Task') {
          const body = standIns(c.payload.body) as JsonObject;
          planned.set(Number(/(\d+)$/.exec(String(body['Name']))?.[1]), body);
        }
      }
      expect([...planned.keys()].sort((a, b) => a - b)).toEqual([...indices].sort((a, b) => a - b));
      const refs = taskRefsOf(loadSeedFile(SEED_FILE));
      expect(mismatchedBodies(planned, refs)).toEqual([]);
      expect(planned.get(7)).toEqual(generatedTaskBody(7, refs));
    } finally {
      await client.close();
    }
  });

  it('name a body that differs from the planner’s', () => {
    const refs = taskRefsOf(loadSeedFile(SEED_FILE));
    const body = generatedTaskBody(12, refs);
    const reordered = { Active: body['Active'], ...body };
    const changed = { ...body, Active: 1 - Number(body['Active']) };
    expect(
      mismatchedBodies(
        new Map([
          [12, body],
          [13, reordered as JsonObject],
        ]),
        refs,
      ),
    ).toEqual([13]);
    expect(mismatchedBodies(new Map([[12, changed]]), refs)).toEqual([12]);
  });
});
