import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorSeed, RunningEmulator } from '../../src/emulator/index.js';
import { readTasks, readTransferUsers } from '../helpers/emulator-test-api.js';
import { ADMIN, automationBase, exampleSeed, form, taskBody, transferBase, withEmulator, XFER_ADMIN } from './helpers.js';

let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

/** What one GET received: the status and `content-length` sent, the bytes that came, and whether the body ended or broke off. */
interface Received {
  readonly status: number;
  readonly contentLength: number;
  readonly bytes: number;
  readonly ended: 'complete' | 'cut' | 'no-answer';
}

function receive(url: string, bearer: string, method = 'GET', body?: string): Promise<Received> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = { authorization: `Bearer ${bearer}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) };
    const req = httpRequest(url, { method, headers, agent: false }, (res) => {
      let bytes = 0;
      const contentLength = Number(res.headers['content-length'] ?? -1);
      const done = (ended: Received['ended']): void => resolve({ status: res.statusCode ?? 0, contentLength, bytes, ended });
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => done('complete'));
      res.on('error', () => done('cut'));
      res.on('aborted', () => done('cut'));
    });
    req.on('error', () => resolve({ status: 0, contentLength: -1, bytes: 0, ended: 'no-answer' }));
    req.end(body);
  });
}

async function transferToken(e: RunningEmulator): Promise<string> {
  e.configure({ faultRate: 0 });
  const r = await form(`${transferBase(e)}/token`, { grant_type: 'password', ...XFER_ADMIN });
  return r.body.access_token as string;
}

function seedWithUsers(n: number): EmulatorSeed {
  const seed = exampleSeed();
  const extra = Array.from({ length: n }, (_, i) => ({ username: `user-${String(i).padStart(3, '0')}`, password: `user-${i}-Pa55!` }));
  return { ...seed, transfer: { ...seed.transfer, users: [...(seed.transfer?.users ?? []), ...extra] } };
}

describe('emulator short-read fault (SPEC rule 104)', () => {
  it('sends the status and the full content-length, then part of the body, and closes; a write so answered took effect', async () => {
    emu = await withEmulator({ faultSeed: 5, shortReads: true });
    const e = emu;
    const bearer = await transferToken(e);
    e.configure({ faultRate: 1 });
    let cut: Received | undefined;
    for (let i = 0; i < 40 && cut === undefined; i++) {
      const before = e.requestLog().length;
      const got = await receive(`${transferBase(e)}/users?perPage=100`, bearer);
      if (e.requestLog()[before]?.fault === 'short-read') cut = got;
    }
    expect(cut).toBeDefined();
    expect(cut!.status).toBe(200);
    expect(cut!.ended).toBe('cut');
    expect(cut!.bytes).toBeLessThan(cut!.contentLength);

    // A task created under a short read exists: the fault is after the write, like write-then-reset.
    e.configure({ faultRate: 0 });
    const admin = (await form(`${automationBase(e)}/token`, { grant_type: 'password', ...ADMIN })).body.access_token as string;
    e.configure({ faultRate: 1 });
    let created = '';
    for (let i = 0; i < 60 && created === ''; i++) {
      const before = e.requestLog().length;
      const name = `Short read ${i}`;
      await receive(`${automationBase(e)}/tasks`, admin, 'POST', JSON.stringify(taskBody(name)));
      if (e.requestLog()[before]?.fault === 'short-read') created = name;
    }
    expect(created).not.toBe('');
    expect(readTasks(e, (t) => t['Name'] === created)).toHaveLength(1);
  });

  it('is never drawn without shortReads, so earlier fault sequences replay unchanged', async () => {
    const kindsOf = async (shortReads: boolean | undefined): Promise<Array<string | undefined>> => {
      const e = await withEmulator({ faultSeed: 5, faultRate: 0.5, ...(shortReads === undefined ? {} : { shortReads }) });
      try {
        for (let i = 0; i < 40; i++) await receive(`${transferBase(e)}/info`, 'none');
        return e.requestLog().map((r) => r.fault);
      } finally {
        await e.close();
      }
    };
    const off = await kindsOf(false);
    expect(off).not.toContain('short-read');
    expect(await kindsOf(undefined)).toEqual(off);
    expect(await kindsOf(true)).toContain('short-read');
  });
});

describe('emulator list-churn fault (SPEC rule 105)', () => {
  it('adds a user before a later page of /users, so that page repeats the last user of the page before; at most churnFaults users', async () => {
    emu = await withEmulator({ seed: seedWithUsers(30), faultSeed: 5, churnFaults: 2 });
    const e = emu;
    const bearer = await transferToken(e);
    const base = readTransferUsers(e).length;
    const page = async (n: number): Promise<string[]> => {
      const r = await fetch(`${transferBase(e)}/users?page=${n}&perPage=10`, { headers: { authorization: `Bearer ${bearer}` } });
      expect(r.status).toBe(200);
      return ((await r.json()) as { items: Array<{ username: string }> }).items.map((u) => u.username);
    };
    // Page 1 is never churned (nothing was read before it; at rate 1 it would get another kind): read it fault-free.
    const first = await page(1);
    e.configure({ faultRate: 1 });
    const second = await page(2);
    expect(e.requestLog().at(-1)?.fault).toBe('list-churn');
    expect(second[0]).toBe(first.at(-1));
    expect(readTransferUsers(e)).toHaveLength(base + 1);
    await page(3);
    expect(readTransferUsers(e)).toHaveLength(base + 2);
    // The budget is spent: later pages get the other kinds of fault, never churn.
    for (let i = 0; i < 10; i++)
      await fetch(`${transferBase(e)}/users?page=2&perPage=10`, { headers: { authorization: `Bearer ${bearer}` } }).catch(() => undefined);
    expect(e.requestLog().filter((r) => r.fault === 'list-churn')).toHaveLength(2);
    expect(readTransferUsers(e)).toHaveLength(base + 2);
    expect(() => e.configure({ churnFaults: -1 })).toThrow(/churn faults must be a whole number/);
    await expect(withEmulator({ churnFaults: 1.5 })).rejects.toThrow(/churn faults must be a whole number/);
  });
});
