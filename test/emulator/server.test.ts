import { once } from 'node:events';
import { Agent, request as httpRequest } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { countAuditRecords, issueAutomationToken, readTask } from '../helpers/emulator-test-api.js';
import { ADMIN, XFER_ADMIN, automationBase, fakeClock, form, login, plainRequest, raw, taskBody, transferBase, withEmulator } from './helpers.js';

let emu: RunningEmulator | undefined;

afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

describe('emulator server', () => {
  it('rule 1: serves both APIs on 127.0.0.1 at a free port, automation under /automation/api/v1 and transfer under /transfer/api/v1', async () => {
    emu = await startEmulator();
    expect(emu.port).toBeGreaterThan(0);
    expect(emu.url).toBe(`http://127.0.0.1:${emu.port}`);
    expect(emu.automationUrl).toBe(`${emu.url}/automation`);
    expect(emu.transferUrl).toBe(`${emu.url}/transfer`);
    const a = await form(`${emu.automationUrl}/api/v1/token`, { grant_type: 'password', ...ADMIN });
    expect(a.status).toBe(200);
    const t = await form(`${emu.transferUrl}/api/v1/token`, { grant_type: 'password', ...XFER_ADMIN });
    expect(t.status).toBe(200);
  });

  it('rule 2: the legacy profile serves automation under /automation/webadmin/api/v1 and answers 404 under /automation/api/v1', async () => {
    emu = await startEmulator({ profile: 'legacy' });
    const moved = await form(`${emu.automationUrl}/api/v1/token`, { grant_type: 'password', ...ADMIN });
    expect(moved.status).toBe(404);
    const ok = await form(`${emu.automationUrl}/webadmin/api/v1/token`, { grant_type: 'password', ...ADMIN });
    expect(ok.status).toBe(200);
  });

  it('rule 100: a token call at the wrong base path (a client probing) is logged as a token call, not a write', async () => {
    emu = await startEmulator({ profile: 'legacy' });
    await form(`${emu.automationUrl}/api/v1/token`, { grant_type: 'password', ...ADMIN });
    await form(`${emu.automationUrl}/webadmin/api/v1/token`, { grant_type: 'password', ...ADMIN });
    const log = emu.requestLog();
    expect(log.map((r) => [r.status, r.isTokenCall])).toEqual([
      [404, true],
      [200, true],
    ]);
  });

  it('rule 3: GET /_emulator/health answers without auth', async () => {
    emu = await startEmulator();
    const r = await raw(`${emu.url}/_emulator/health`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'ok', profile: 'current', automationUrl: emu.automationUrl });
  });

  it('rule 4: GET /_emulator/requests lists API requests with counts by method and writes vs reads without token calls', async () => {
    emu = await withEmulator();
    const api = await login(automationBase(emu), ADMIN);
    await api.get('/tasks');
    await api.get('/hosts');
    await api.call('POST', '/tasks', taskBody('Counted task'));
    await raw(`${emu.url}/_emulator/health`);
    const r = await raw(`${emu.url}/_emulator/requests`);
    expect(r.body.requests.map((x: { method: string; path: string }) => `${x.method} ${x.path}`)).toEqual([
      'POST /automation/api/v1/token',
      'GET /automation/api/v1/tasks',
      'GET /automation/api/v1/hosts',
      'POST /automation/api/v1/tasks',
    ]);
    expect(r.body.requests[0]).toMatchObject({ service: 'automation', status: 200, isTokenCall: true });
    expect(r.body.counts).toMatchObject({ total: 4, byMethod: { GET: 2, POST: 2 }, reads: 2, writes: 1, tokenCalls: 1 });
    expect(emu.requestLog()).toHaveLength(4);
  });

  it('rule 5: POST /_emulator/requests/reset empties the request log', async () => {
    emu = await startEmulator();
    await login(automationBase(emu), ADMIN);
    expect((await raw(`${emu.url}/_emulator/requests/reset`, { method: 'POST' })).status).toBe(204);
    expect((await raw(`${emu.url}/_emulator/requests`)).body.counts.total).toBe(0);
    await login(automationBase(emu), ADMIN);
    emu.resetRequestLog();
    expect(emu.requestLog()).toEqual([]);
  });

  it('rule 6: latencyMs delays every API response but not the control endpoints', async () => {
    emu = await startEmulator({ latencyMs: 150 });
    const clock = fakeClock();
    try {
      expect((await clock.answeredAfter(150, plainRequest(`${emu.transferUrl}/api/v1/token`))).status).toBe(200);
      // The control endpoint answers with the clock standing still.
      const health = clock.track(plainRequest(`${emu.url}/_emulator/health`));
      await clock.advance(0);
      expect(health.settled()).toBe(true);
      expect((await health.answer).status).toBe(200);
    } finally {
      vi.useRealTimers();
    }
  });

  it('rule 101: configure() changes latency and fault rate for the requests that follow, and refuses bad values', async () => {
    const e = await startEmulator();
    emu = e;
    const clock = fakeClock();
    try {
      // No latency: answered with the clock standing still.
      const first = clock.track(plainRequest(`${e.transferUrl}/api/v1/token`));
      await clock.advance(0);
      expect(first.settled()).toBe(true);
      e.configure({ latencyMs: 150 });
      expect((await clock.answeredAfter(150, plainRequest(`${e.transferUrl}/api/v1/token`))).status).toBe(200);
    } finally {
      vi.useRealTimers();
    }
    e.configure({ latencyMs: 0, faultRate: 1 });
    await raw(`${e.transferUrl}/api/v1/token`).catch(() => undefined);
    expect(e.requestLog().at(-1)?.fault).toBeDefined();
    expect(() => e.configure({ faultRate: 2 })).toThrow(/fault rate must be from 0 to 1/);
  });

  it('rule 7: faults follow a PRNG seeded by faultSeed, hit token calls, never control calls, and are logged', async () => {
    const run = async (): Promise<string[]> => {
      const e = await startEmulator({ faultRate: 0.5, faultSeed: 42 });
      try {
        for (let i = 0; i < 12; i++) await raw(`${e.transferUrl}/api/v1/token`).catch(() => undefined);
        const health = await raw(`${e.url}/_emulator/health`);
        expect(health.status).toBe(200);
        return e.requestLog().map((r) => r.fault ?? 'none');
      } finally {
        await e.close();
      }
    };
    const first = await run();
    const second = await run();
    expect(first).toEqual(second);
    expect(first.filter((f) => f !== 'none').length).toBeGreaterThan(0);
    expect(first.filter((f) => f === 'none').length).toBeGreaterThan(0);
    expect(first.every((f) => ['none', 'error-500', 'error-503', 'reset'].includes(f))).toBe(true);
  });

  it('rule 8: a 503 fault carries Retry-After: 1 and a 500 fault the service error body', async () => {
    emu = await startEmulator({ faultRate: 1, faultSeed: 7 });
    const seen = new Map<number, { retryAfter: string | null; body: unknown }>();
    for (let i = 0; i < 40 && seen.size < 2; i++) {
      const r = await raw(`${emu.transferUrl}/api/v1/token`).catch(() => undefined);
      if (r && (r.status === 500 || r.status === 503)) seen.set(r.status, { retryAfter: r.headers.get('retry-after'), body: r.body });
    }
    expect(seen.get(503)?.retryAfter).toBe('1');
    expect(seen.get(500)?.body).toMatchObject({ title: 'Internal Server Error', errorCode: 500 });
    expect(seen.get(500)?.body).not.toHaveProperty('status');
  });

  it('rule 9: a reset fault destroys the connection and is logged with status 0', async () => {
    emu = await startEmulator({ faultRate: 1, faultSeed: 3 });
    let resets = 0;
    for (let i = 0; i < 30 && resets === 0; i++) {
      try {
        await raw(`${emu.transferUrl}/api/v1/token`);
      } catch {
        resets++;
      }
    }
    expect(resets).toBe(1);
    const logged = emu.requestLog().filter((r) => r.fault === 'reset');
    expect(logged).toHaveLength(1);
    expect(logged[0]!.status).toBe(0);
  });

  it('rule 10: write-then-500 and write-then-reset faults apply the write before failing; the other faults do not', async () => {
    emu = await startEmulator({ faultRate: 1, faultSeed: 11 });
    issueAutomationToken(emu, 't0k', { kind: 'access', username: 'admin', expiresAt: Date.now() + 60_000, revoked: false });
    const seen = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const before = countAuditRecords(emu);
      const action = i % 2 === 0 ? 'stop' : 'start';
      await fetch(`${emu.automationUrl}/api/v1/tasks/scheduler/${action}`, { method: 'PUT', headers: { authorization: 'Bearer t0k' } }).catch(() => undefined);
      const fault = emu.requestLog().at(-1)!.fault!;
      seen.add(fault);
      expect(countAuditRecords(emu) - before).toBe(fault.startsWith('write-then') ? 1 : 0);
    }
    expect(seen).toContain('write-then-500');
    expect(seen).toContain('write-then-reset');
    expect(seen).toContain('error-503');
  });

  it('rule 11: close() ends an open keep-alive connection itself, resolves, and the port stops answering', async () => {
    emu = await startEmulator();
    const url = `${emu.transferUrl}/api/v1/token`;
    const agent = new Agent({ keepAlive: true });
    onTestFinished(() => agent.destroy());
    // One request on a keep-alive connection, which then stays open and idle in the agent.
    const socket = await new Promise<Socket>((resolve, reject) => {
      const req = httpRequest(url, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(req.socket!));
      });
      req.on('error', reject);
      req.end();
    });
    expect(socket.destroyed).toBe(false);
    const ended = once(socket, 'close');
    await emu.close();
    await ended;
    await expect(fetch(url)).rejects.toThrow();
    emu = undefined;
  });

  it('rule 12: an unknown path answers 404 and a known path with the wrong method 405, in the service error shape', async () => {
    emu = await withEmulator();
    const a = await login(automationBase(emu), ADMIN);
    const nf = await a.get('/nothing-here');
    expect(nf.status).toBe(404);
    expect(nf.body).toMatchObject({ status: 404, title: 'Not Found' });
    const na = await a.call('PATCH', '/tasks');
    expect(na.status).toBe(405);
    const t = await login(transferBase(emu), XFER_ADMIN);
    const tnf = await t.get('/nothing-here');
    expect(tnf.status).toBe(404);
    expect(tnf.body).toMatchObject({ title: 'Not Found', errorCode: 404 });
    expect((await raw(`${emu.url}/elsewhere`)).status).toBe(404);
  });

  it('rule 13: a write whose body is not declared JSON answers 415', async () => {
    emu = await withEmulator();
    const a = await login(automationBase(emu), ADMIN);
    const r = await a.call('POST', '/tasks', JSON.stringify(taskBody('Typed')), { 'content-type': 'text/plain' });
    expect(r.status).toBe(415);
    expect(readTask(emu, { name: 'Typed' })).toBeUndefined();
  });
});
