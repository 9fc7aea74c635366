import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { setClockOffset } from '../helpers/emulator-test-api.js';
import { ADMIN, automationBase, form, login, raw } from './helpers.js';

let emu: RunningEmulator;
let base: string;
beforeEach(async () => {
  emu = await startEmulator({ accessTtlSeconds: 300, refreshTtlSeconds: 900 });
  base = automationBase(emu);
});
afterEach(() => emu.close());

const bearer = (token: string): RequestInit => ({ headers: { authorization: `Bearer ${token}` } });

describe('automation tokens', () => {
  it('rule 14: the password grant answers {access_token, token_type: bearer, expires_in, refresh_token}', async () => {
    const r = await form(`${base}/token`, { grant_type: 'password', ...ADMIN });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ access_token: expect.any(String), token_type: 'bearer', expires_in: 300, refresh_token: expect.any(String) });
    expect((await raw(`${base}/info`, bearer(r.body.access_token))).status).toBe(200);
  });

  it('rule 15: token errors are 400 {error, error_description}: invalid_grant, invalid_request, unsupported_grant_type', async () => {
    const wrong = await form(`${base}/token`, { grant_type: 'password', username: 'admin', password: 'nope' });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ error: 'invalid_grant', error_description: expect.any(String) });
    expect((await form(`${base}/token`, { grant_type: 'password', password: 'x' })).body.error).toBe('invalid_request');
    expect((await form(`${base}/token`, { grant_type: 'client_credentials' })).body.error).toBe('unsupported_grant_type');
    const json = await raw(`${base}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password', ...ADMIN }),
    });
    expect(json.status).toBe(400);
    expect(json.body.error).toBe('invalid_request');
  });

  it('rule 16: an access token stops working after accessTtlSeconds (401)', async () => {
    const api = await login(base, ADMIN);
    expect((await api.get('/info')).status).toBe(200);
    setClockOffset(emu, 301_000);
    const r = await api.get('/info');
    expect(r.status).toBe(401);
    expect(r.body.detail).toMatch(/expired/);
  });

  it('rule 17: the refresh grant returns new tokens and the old refresh token stops working', async () => {
    const first = await form(`${base}/token`, { grant_type: 'password', ...ADMIN });
    const second = await form(`${base}/token`, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token });
    expect(second.status).toBe(200);
    expect(second.body.access_token).not.toBe(first.body.access_token);
    expect(second.body.refresh_token).not.toBe(first.body.refresh_token);
    expect((await raw(`${base}/info`, bearer(second.body.access_token))).status).toBe(200);
    const again = await form(`${base}/token`, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
  });

  it('rule 18: a refresh token stops working after refreshTtlSeconds', async () => {
    const first = await form(`${base}/token`, { grant_type: 'password', ...ADMIN });
    setClockOffset(emu, 901_000);
    const r = await form(`${base}/token`, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_grant');
  });

  it('rule 19: a refresh token used as a bearer answers 401', async () => {
    const api = await login(base, ADMIN);
    const r = await raw(`${base}/info`, bearer(api.refreshToken));
    expect(r.status).toBe(401);
  });

  it('rule 20: revoke answers 200 for live, expired and unknown tokens, and a revoked access token fails at once', async () => {
    const api = await login(base, ADMIN);
    const revoke = (token: string) => form(`${base}/token/revoke`, { token });
    expect((await revoke(api.token)).status).toBe(200);
    expect((await api.get('/info')).status).toBe(401);
    expect((await revoke(api.token)).status).toBe(200);
    expect((await revoke('never-issued')).status).toBe(200);
    const other = await login(base, ADMIN);
    setClockOffset(emu, 10_000_000);
    expect((await revoke(other.token)).status).toBe(200);
  });

  it('rule 21: a missing or malformed bearer answers 401 with a Server Error Message {status, title, detail}', async () => {
    const none = await raw(`${base}/tasks`);
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ status: 401, title: 'Unauthorized', detail: expect.any(String) });
    expect((await raw(`${base}/tasks`, { headers: { authorization: 'Basic YWRtaW46eA==' } })).status).toBe(401);
  });
});
