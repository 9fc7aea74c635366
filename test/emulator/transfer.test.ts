import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { setClockOffset } from '../helpers/emulator-test-api.js';
import type { Api } from './helpers.js';
import { XFER_ADMIN, exampleSeed, form, login, raw, transferBase, withEmulator } from './helpers.js';

let emu: RunningEmulator;
let base: string;
let api: Api;
const seed = exampleSeed();
const ALICE = { username: 'alice', password: 'alice-SEEDSECRET-11' };
beforeEach(async () => {
  emu = await withEmulator();
  base = transferBase(emu);
  api = await login(base, XFER_ADMIN);
});
afterEach(() => emu.close());

describe('transfer tokens, users, groups, paging', () => {
  it('rule 71: GET /token needs no auth and answers a small JSON object', async () => {
    const r = await raw(`${base}/token`);
    expect(r.status).toBe(200);
    expect(typeof r.body).toBe('object');
  });

  it('rule 72: POST /token takes the password grant (language and orgId optional) and a rotating refresh grant', async () => {
    const r = await form(`${base}/token`, { grant_type: 'password', ...XFER_ADMIN, language: 'en', orgId: '0' });
    expect(r.body).toEqual({ access_token: expect.any(String), token_type: 'bearer', expires_in: 300, refresh_token: expect.any(String) });
    const next = await form(`${base}/token`, { grant_type: 'refresh_token', refresh_token: r.body.refresh_token });
    expect(next.status).toBe(200);
    expect((await form(`${base}/token`, { grant_type: 'refresh_token', refresh_token: r.body.refresh_token })).status).toBe(400);
  });

  it('rule 73: token errors are 400 {error, error_description, error_code}', async () => {
    const r = await form(`${base}/token`, { grant_type: 'password', username: 'admin', password: 'wrong' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'invalid_grant', error_description: expect.any(String), error_code: expect.any(Number) });
  });

  it('rule 74: POST /token/revoke needs a valid bearer (401 otherwise), answers {message}, and the token stops working', async () => {
    expect((await form(`${base}/token/revoke`, { token: api.token })).status).toBe(401);
    const r = await form(`${base}/token/revoke`, { token: api.token }, { authorization: `Bearer ${api.token}` });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: expect.any(String) });
    expect((await api.get('/users/self')).status).toBe(401);
  });

  it('rule 75: error bodies are {title, detail, errorCode} without status; an expired bearer is 401', async () => {
    const r = await raw(`${base}/users/self`);
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ title: 'Unauthorized', detail: expect.any(String), errorCode: 401 });
    setClockOffset(emu, 301_000);
    expect((await api.get('/users/self')).status).toBe(401);
  });

  it('rule 76: lists page with page/perPage (default 25) in the {items, paging, sorting} envelope; bad values answer 400', async () => {
    const r = await api.get('/folders?perPage=3&page=2');
    expect(r.body.items).toHaveLength(3);
    expect(r.body.paging).toEqual({ page: 2, perPage: 3, totalItems: expect.any(Number), totalPages: Math.ceil(r.body.paging.totalItems / 3) });
    expect(r.body.sorting).toEqual([{ sortField: 'Path', sortDirection: 'asc' }]);
    expect((await api.get('/folders')).body.paging.perPage).toBe(25);
    expect((await api.get('/folders?page=0')).status).toBe(400);
    expect((await api.get('/folders?sortField=colour')).status).toBe(400);
    const desc = await api.get('/folders?sortField=name&sortDirection=desc&perPage=100');
    const got = desc.body.items.map((f: { name: string }) => f.name.toLowerCase());
    expect(got).toEqual([...got].sort().reverse());
  });

  it('rule 77: the legacy profile answers the flat {items, currentPage, totalItems, itemsPerPage, sorting} and 404 past the last page; current answers empty items', async () => {
    expect((await api.get('/folders?page=50')).body.items).toEqual([]);
    await emu.close();
    emu = await withEmulator({ profile: 'legacy' });
    const legacy = await login(transferBase(emu), XFER_ADMIN);
    const r = await legacy.get('/folders?perPage=4');
    expect(Object.keys(r.body).sort()).toEqual(['currentPage', 'items', 'itemsPerPage', 'sorting', 'totalItems']);
    expect(r.body).toMatchObject({ currentPage: 1, itemsPerPage: 4 });
    const last = Math.ceil(r.body.totalItems / 4);
    expect((await legacy.get(`/folders?perPage=4&page=${last}`)).status).toBe(200);
    expect((await legacy.get(`/folders?perPage=4&page=${last + 1}`)).status).toBe(404);
  });

  it('rule 78: folder ids are JSON numbers on current and strings on legacy; user ids are strings; group ids are numbers', async () => {
    const f = (await api.get('/folders?path=/Finance')).body.items[0];
    expect(typeof f.id).toBe('number');
    expect(typeof f.parentId).toBe('number');
    expect(typeof (await api.get('/users/self')).body.id).toBe('string');
    expect(typeof (await api.get('/groups')).body.items[0].id).toBe('number');
    await emu.close();
    emu = await withEmulator({ profile: 'legacy' });
    const legacy = await login(transferBase(emu), XFER_ADMIN);
    const lf = (await legacy.get('/folders?path=/Finance')).body.items[0];
    expect(typeof lf.id).toBe('string');
    expect((await legacy.get(`/folders/${lf.id}`)).body.path).toBe('/Finance');
  });

  it('rule 79: GET /users/self answers the current user record (UserDetailsModel) — never the password', async () => {
    const alice = await login(base, ALICE);
    const r = await alice.get('/users/self');
    expect(r.body).toMatchObject({
      id: expect.any(String),
      username: 'alice',
      fullName: 'Alice Martin',
      permission: 'User',
      email: 'alice.martin@example.com',
      homeFolderID: expect.any(Number),
    });
    expect(r.text).not.toContain('SEEDSECRET');
    expect(r.body).not.toHaveProperty('password');
  });

  it('rule 80: GET /users?username=&isExactMatch=true finds one user for admins; other callers get 403', async () => {
    const r = await api.get('/users?username=ALICE&isExactMatch=true');
    expect(r.body.items).toEqual([expect.objectContaining({ username: 'alice', fullName: 'Alice Martin', id: expect.any(String) })]);
    expect((await api.get('/users?username=svc')).body.items.map((u: { username: string }) => u.username)).toEqual([
      'acme-svc',
      'automation-svc',
      'globex-svc',
      'initech-svc',
    ]);
    expect((await api.get('/users')).body.paging.totalItems).toBe(seed.transfer!.users!.length);
    const alice = await login(base, ALICE);
    expect((await alice.get('/users?username=bob&isExactMatch=true')).status).toBe(403);
  });

  it('rule 81: GET /groups answers {id, name, description, membersCount} for admins', async () => {
    const r = await api.get('/groups');
    const acme = r.body.items.find((g: { name: string }) => g.name === 'Acme Partners');
    expect(acme).toEqual({ id: expect.any(Number), name: 'Acme Partners', description: 'Acme Corp people and systems', membersCount: 2 });
    expect(r.body.items.map((g: { name: string }) => g.name)).toEqual(['Acme Partners', 'Finance Team', 'Globex Partners', 'Initech Partners']);
    const alice = await login(base, ALICE);
    expect((await alice.get('/groups')).status).toBe(403);
  });
});
