import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { readTasks } from '../helpers/emulator-test-api.js';
import { ADMIN, automationBase, fakeClock, form, plainRequest, taskBody, withEmulator } from './helpers.js';

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
    const e = emu;
    const bearer = await token(e);
    e.configure({ faultRate: 1, slowResponseMs: 400 });
    const headers = { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' };
    const name = (i: number) => `Slow answer ${i}`;
    // The held answer waits on the test's clock; a request's log entry is the event that it was handled.
    const clock = fakeClock();
    try {
      let slowIndex = -1;
      // Faults are drawn uniformly among six kinds: some POST of a few gets the slow answer.
      for (let i = 0; i < 30 && slowIndex < 0; i++) {
        const before = e.requestLog().length;
        const giveUp = new AbortController();
        const res = clock.track(
          plainRequest(`${automationBase(e)}/tasks`, { method: 'POST', headers, body: JSON.stringify(taskBody(name(i))), signal: giveUp.signal }).catch(
            (err: unknown) => err as Error,
          ),
        );
        await clock.until(() => res.settled() || e.requestLog()[before]?.fault === 'slow-answer');
        const entry = e.requestLog()[before];
        if (entry?.fault === 'slow-answer') {
          slowIndex = i;
          // Handled (the task was created, 201 logged) while the answer is held; the client gives up.
          expect(res.settled()).toBe(false);
          expect(entry.status).toBe(201);
          giveUp.abort();
          expect(await res.answer).toBeInstanceOf(Error);
        }
      }
      expect(slowIndex).toBeGreaterThanOrEqual(0);
      expect(readTasks(e, (t) => t['Name'] === name(slowIndex))).toHaveLength(1);

      // A patient client gets the full answer at slowResponseMs, not before.
      let answered = false;
      for (let i = 0; i < 30 && !answered; i++) {
        const before = e.requestLog().length;
        const res = clock.track(
          plainRequest(`${automationBase(e)}/tasks`, { headers: { authorization: `Bearer ${bearer}` } }).catch((err: unknown) => err as Error),
        );
        await clock.until(() => res.settled() || e.requestLog()[before]?.fault === 'slow-answer');
        if (e.requestLog()[before]?.fault === 'slow-answer') {
          const reply = await clock.answeredAfter(400, res.answer);
          if (reply instanceof Error) throw reply;
          expect(reply.status).toBe(200);
          expect((JSON.parse(reply.text) as { items: unknown[] }).items.length).toBeGreaterThan(0);
          answered = true;
        }
      }
      expect(answered).toBe(true);
    } finally {
      vi.useRealTimers();
    }
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
