import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { addGlobalParameter } from '../helpers/emulator-test-api.js';
import type { Api } from './helpers.js';
import { ADMIN, OPERATOR, automationBase, exampleSeed, login, taskBody, withEmulator } from './helpers.js';

let emu: RunningEmulator;
let api: Api;
const seed = exampleSeed();
const seedTaskNames = (seed.automation!.tasks ?? []).map((t) => String(t.Name));
const sortedNames = [...seedTaskNames].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));

beforeEach(async () => {
  emu = await withEmulator();
  api = await login(automationBase(emu), ADMIN);
});
afterEach(() => emu.close());

const names = (r: { body: { items: { Name: string }[] } }): string[] => r.body.items.map((i) => i.Name);

describe('automation lists', () => {
  it('rule 22: without paging parameters a list holds every item, sorted by name, in the {items, paging, sorting} envelope', async () => {
    const r = await api.get('/tasks');
    expect(r.status).toBe(200);
    expect(names(r)).toEqual(sortedNames);
    expect(r.body.paging).toEqual({ page: 1, perPage: 2147483647, totalItems: seedTaskNames.length, totalPages: 1 });
    expect(r.body.sorting).toEqual([{ sortField: 'Name', sortDirection: 'asc' }]);
  });

  it('rule 23: page and perPage give that page and the page count', async () => {
    const r = await api.get('/tasks?page=2&perPage=3');
    expect(names(r)).toEqual(sortedNames.slice(3, 6));
    expect(r.body.paging).toEqual({ page: 2, perPage: 3, totalItems: seedTaskNames.length, totalPages: Math.ceil(seedTaskNames.length / 3) });
  });

  it('rule 24: perPage alone gives the first page of that size', async () => {
    const r = await api.get('/tasks?perPage=2');
    expect(names(r)).toEqual(sortedNames.slice(0, 2));
    expect(r.body.paging.page).toBe(1);
  });

  it('rule 25: page alone uses the default page size of 25', async () => {
    for (let i = 0; i < 30; i++) addGlobalParameter(emu, { ID: `9${i}`, Name: `P${String(i).padStart(2, '0')}`, Value: '' });
    const r = await api.get('/globalparameters?page=2');
    expect(r.body.paging.perPage).toBe(25);
    expect(r.body.items).toHaveLength(30 + 2 - 25);
  });

  it('rule 26: page or perPage that is 0, negative or not an integer answers 422 with errors[]', async () => {
    for (const q of ['page=0', 'perPage=0', 'page=-1&perPage=5', 'page=1.5', 'perPage=abc', 'page=']) {
      const r = await api.get(`/tasks?${q}`);
      expect(r.status, q).toBe(422);
      expect(r.body).toMatchObject({ status: 422, title: expect.any(String), detail: expect.any(String) });
      expect(r.body.errors[0]).toEqual({ field: expect.stringMatching(/^(page|perPage)$/), rejected: expect.any(String), message: expect.any(String) });
    }
  });

  it('rule 27: a page past the end answers 200 with no items', async () => {
    const r = await api.get('/tasks?page=99&perPage=5');
    expect(r.status).toBe(200);
    expect(r.body.items).toEqual([]);
    expect(r.body.paging.totalItems).toBe(seedTaskNames.length);
  });

  it('rule 28: name masks are case-insensitive: exact, * and ** for all, *x* contains, x* starts, *x ends', async () => {
    const q = async (mask: string) => names(await api.get(`/tasks?name=${encodeURIComponent(mask)}`));
    expect(await q('payroll TO BANK')).toEqual(['Payroll to bank']);
    expect(await q('Payroll')).toEqual([]);
    expect(await q('*')).toEqual(sortedNames);
    expect(await q('**')).toEqual(sortedNames);
    expect(await q('*BOUND*')).toEqual(sortedNames.filter((n) => /bound/i.test(n)));
    expect(await q('acme*')).toEqual(['Acme inbound', 'Acme outbound']);
    expect(await q('*outbound')).toEqual(['Acme outbound', 'Globex outbound']);
  });

  it('rule 29: fields= keeps only the named top-level fields, case-sensitive, unknown names ignored', async () => {
    const r = await api.get('/tasks?fields=ID,Name,name,Bogus&perPage=2');
    for (const item of r.body.items) expect(Object.keys(item).sort()).toEqual(['ID', 'Name']);
  });

  it('rule 30: a non-admin sees only tasks of resource groups where one of their user groups has an ACL', async () => {
    const op = await login(automationBase(emu), OPERATOR);
    const r = await op.get('/tasks');
    const finance = (seed.automation!.tasks ?? []).filter((t) => (t.Group as string[]).includes('Finance')).map((t) => String(t.Name));
    expect(names(r).sort()).toEqual(finance.sort());
    const hidden = (seed.automation!.tasks ?? []).find((t) => !(t.Group as string[]).includes('Finance'))!;
    expect((await op.get(`/tasks/${String(hidden.ID)}`)).status).toBe(404);
  });

  it('rule 22: a list read after a create, a replace, a delete or a rename answers the new order, page by page', async () => {
    // The emulator reuses its last sort of a list while nothing changed: each write must show.
    const byPages = async (who: Api = api): Promise<string[]> => {
      const out: string[] = [];
      for (let page = 1; ; page++) {
        const r = await who.get(`/tasks?page=${page}&perPage=3`);
        if (r.body.items.length === 0) return out;
        out.push(...names(r));
      }
    };
    const fresh = (): string[] => emu.state.automation.tasks.map((t) => String(t.Name)).sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
    expect(await byPages()).toEqual(sortedNames);
    expect((await api.call('POST', '/tasks', taskBody('aaa first'))).status).toBe(201);
    expect(await byPages()).toEqual(fresh());
    expect((await byPages())[0]).toBe('aaa first');
    const last = emu.state.automation.tasks.find((t) => t.Name === sortedNames.at(-1))!;
    const replaced = { ...(await api.get(`/tasks/${String(last.ID)}`)).body, Name: 'AAA before all' };
    delete replaced.Schedules;
    expect((await api.call('PUT', `/tasks/${String(last.ID)}`, replaced)).status).toBe(200);
    expect((await byPages())[0]).toBe('AAA before all');
    expect(await byPages()).toEqual(fresh());
    const first = emu.state.automation.tasks.find((t) => t.Name === 'aaa first')!;
    expect((await api.call('DELETE', `/tasks/${String(first.ID)}`)).status).toBe(204);
    expect(await byPages()).toEqual(fresh());
    // The same task object renamed in place (another writer of the emulator's state): the new name sorts.
    emu.state.automation.tasks.find((t) => t.Name === sortedNames[0])!.Name = 'zzz last';
    expect((await byPages()).at(-1)).toBe('zzz last');
    expect(await byPages()).toEqual(fresh());
    // A non-admin's pages keep the administrator's order of the tasks they see.
    const op = await login(automationBase(emu), OPERATOR);
    const seen = new Set(await byPages(op));
    expect(seen.size).toBeGreaterThan(0);
    expect(await byPages(op)).toEqual((await byPages()).filter((n) => seen.has(n)));
  });
});
