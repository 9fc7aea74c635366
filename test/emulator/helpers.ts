import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { expect, vi } from 'vitest';
import type { EmulatorOptions, EmulatorSeed, RunningEmulator } from '../../src/emulator/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { EXAMPLE_SEED_FILES, readVariants } from '../helpers/emulator-test-api.js';

export const SEED_PATH = EXAMPLE_SEED_FILES.production;

/** A fresh copy of the example seed (tests may edit it). */
export function exampleSeed(): EmulatorSeed {
  return JSON.parse(readFileSync(SEED_PATH, 'utf8')) as EmulatorSeed;
}

export const ADMIN = { username: 'admin', password: 'admin-Pa55!seed' };
export const OPERATOR = { username: 'operator', password: 'operator-Pa55!seed' };
export const XFER_ADMIN = { username: 'admin', password: 'xfer-admin-Pa55!seed' };

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The parsed JSON body (undefined when empty). */
  readonly body: any;
}

async function reply(res: Response): Promise<Reply> {
  const text = await res.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

export async function form(url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Reply> {
  return reply(
    await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields).toString(),
    }),
  );
}

/** A small API client for one service and one user: `call('GET', '/tasks')`. */
export interface Api {
  readonly base: string;
  readonly token: string;
  readonly refreshToken: string;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  get(path: string): Promise<Reply>;
}

export async function login(base: string, user: { username: string; password: string }): Promise<Api> {
  const r = await form(`${base}/token`, { grant_type: 'password', username: user.username, password: user.password });
  if (r.status !== 200) throw new Error(`login ${user.username} at ${base}: ${r.status} ${r.text}`);
  const token = r.body.access_token as string;
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
    const h: Record<string, string> = { authorization: `Bearer ${token}`, ...headers };
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      h['content-type'] ??= 'application/json';
    }
    return reply(await fetch(`${base}${path}`, { method, headers: h, ...(payload !== undefined ? { body: payload } : {}) }));
  };
  return { base, token, refreshToken: r.body.refresh_token as string, call, get: (p) => call('GET', p) };
}

export function automationBase(emu: RunningEmulator): string {
  return readVariants(emu)['automation.basePath'] === 'webadmin' ? `${emu.automationUrl}/webadmin/api/v1` : `${emu.automationUrl}/api/v1`;
}
export function transferBase(emu: RunningEmulator): string {
  return `${emu.transferUrl}/api/v1`;
}

/** Start an emulator with the example seed (unless `seed` is given) and register its closing. */
export async function withEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  return startEmulator({ seed: exampleSeed(), ...options });
}

export async function raw(url: string, init?: RequestInit): Promise<Reply> {
  return reply(await fetch(url, init));
}

/** A minimal valid task body referencing seed objects by their seed ids. */
export function taskBody(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    Name: name,
    Group: ['Partners'],
    steps: [{ Source: { HostID: '201004', Path: '/outgoing', FileMask: '*.txt' } }, { Destination: { HostID: '201007', Path: 'D:\\in' } }],
    ...extra,
  };
}

/**
 * The test's clock for the emulator's timers (latency, held answers): a fake `setTimeout`, so a
 * delayed answer comes when the test moves the clock and "not before N ms, at N ms" is checked
 * exactly, on any machine. Requests under it go through {@link plainRequest}. The test puts the
 * real timers back (`vi.useRealTimers()`) before it returns: vitest's own timeout needs them.
 */
export function fakeClock() {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const timers = vi.spyOn(globalThis, 'setTimeout');
  const turn = () => new Promise((r) => setImmediate(r));
  const clock = {
    /** A request whose settling the test can look at without waiting for it. */
    track<T>(answer: Promise<T>) {
      let done = false;
      void answer.finally(() => (done = true)).catch(() => undefined);
      return { answer, settled: () => done };
    },
    /** Resolves once the emulator has set a timer of `ms` (a request waits it out); other code may set other timers. */
    async untilWaiting(ms: number) {
      while (!timers.mock.calls.some((call) => call[1] === ms)) await turn();
      timers.mockClear();
    },
    /** Resolves once `done()` holds, looking again after each turn of the event loop. */
    async until(done: () => boolean) {
      while (!done()) await turn();
    },
    /** Move the clock, then give the answers it released turns of the event loop to arrive. */
    async advance(ms: number) {
      await vi.advanceTimersByTimeAsync(ms);
      for (let i = 0; i < 100; i++) await turn();
    },
    /** The answer to a request the emulator holds for `ms`: not there at `ms` - 1 on the clock, there at `ms`. */
    async answeredAfter<T>(ms: number, answer: Promise<T>): Promise<T> {
      const tracked = clock.track(answer);
      await clock.untilWaiting(ms);
      await clock.advance(ms - 1);
      expect(tracked.settled()).toBe(false);
      await clock.advance(1);
      return answer;
    },
  };
  return clock;
}

/** A request through node:http on a connection of its own: it sets no timer (fetch does), so under a fake clock the only timers are the emulator's. */
export function plainRequest(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal } = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: init.method ?? 'GET', headers: init.headers ?? {}, agent: false, ...(init.signal ? { signal: init.signal } : {}) },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}
