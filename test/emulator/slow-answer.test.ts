import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ADMIN, automationBase, form, taskBody, withEmulator } from './helpers.js';

let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

async function token(e: RunningEmulator): Promise<string> {
  e.configure({ faultRate: 0 });
  const r = await form(`${automationBase(e)}/token`, { grant_type: 'password', ...ADMIN });
  return r.body.access_token as string;
}

describe('emulator slow-answer fault (SPEC rule 102)', () => {
  it('a held answer arrives after slowResponseMs, complete; a client that gave up earlier left a write that took effect', async () => {
    emu = await withEmulator({ faultSeed: 3 });
    const bearer = await token(emu);
    emu.configure({ faultRate: 1, slowResponseMs: 400 });
    const name = (i: number) => `Slow answer ${i}`;
    let slowIndex = -1;
    // Faults are drawn uniformly among six kinds: some POST of a few gets the slow answer.
    for (let i = 0; i < 30 && slowIndex < 0; i++) {
      const before = emu.requestLog().length;
      const started = Date.now();
      const res = await fetch(`${automationBase(emu)}/tasks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify(taskBody(name(i))),
        signal: AbortSignal.timeout(150),
      }).catch((e: unknown) => e as Error);
      const entry = emu.requestLog()[before];
      if (entry?.fault === 'slow-answer') {
        slowIndex = i;
        // The client timed out (150 ms < 400 ms), yet the task exists: outcome unknown, write done.
        expect(res).toBeInstanceOf(Error);
        expect(Date.now() - started).toBeLessThan(400);
        expect(entry.status).toBe(201);
      }
    }
    expect(slowIndex).toBeGreaterThanOrEqual(0);
    expect(emu.state.automation.tasks.filter((t) => t['Name'] === name(slowIndex))).toHaveLength(1);

    // A patient client gets the full answer, late.
    let waited = -1;
    for (let i = 0; i < 30 && waited < 0; i++) {
      const before = emu.requestLog().length;
      const started = Date.now();
      const res = await fetch(`${automationBase(emu)}/tasks`, { headers: { authorization: `Bearer ${bearer}` } }).catch(() => undefined);
      if (emu.requestLog()[before]?.fault === 'slow-answer') {
        waited = Date.now() - started;
        expect(res?.status).toBe(200);
        expect(((await res!.json()) as { items: unknown[] }).items.length).toBeGreaterThan(0);
      }
    }
    expect(waited).toBeGreaterThanOrEqual(400);
  });

  it('with slowResponseMs 0 the kind is never drawn, and bad values are refused', async () => {
    emu = await withEmulator({ faultSeed: 3, faultRate: 1 });
    for (let i = 0; i < 40; i++) await fetch(`${automationBase(emu)}/info`).catch(() => undefined);
    const kinds = new Set(emu.requestLog().map((r) => r.fault));
    expect(kinds.has('slow-answer')).toBe(false);
    expect(kinds.size).toBeGreaterThan(1);
    expect(() => emu!.configure({ slowResponseMs: -1 })).toThrow(/slow response must be 0 or more/);
    await expect(withEmulator({ slowResponseMs: Number.NaN })).rejects.toThrow(/slow response must be 0 or more/);
  });
});
