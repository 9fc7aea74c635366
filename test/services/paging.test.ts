import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/services/errors.js';
import { JSON_BODY_LIMIT } from '../../src/services/transport.js';
import { PAGES_IN_FLIGHT, parseListPage, readAllPages } from '../../src/services/paging.js';
import type { PageQuery } from '../../src/services/paging.js';
import { AUTOMATION, JSON_HEADERS, TRANSFER, automationClient, createMock, replyDirectory, replyToken, transferClient } from './helpers.js';

const label = () => ({ service: 'transfer' as const, method: 'GET' as const, path: '/api/v1/users' });

describe('list envelopes', () => {
  it('reads the paging envelope', () => {
    const page = parseListPage({ items: [1, 2], paging: { page: 1, perPage: 2, totalItems: 5, totalPages: 3 }, sorting: [] });
    expect(page).toEqual({ items: [1, 2], page: 1, perPage: 2, totalPages: 3 });
  });

  it('reads the flat envelope and computes totalPages from totalItems / itemsPerPage', () => {
    const page = parseListPage({ items: ['a'], currentPage: 2, totalItems: 51, itemsPerPage: 25, sorting: [] });
    expect(page).toEqual({ items: ['a'], page: 2, perPage: 25, totalPages: 3 });
  });

  it('reads a bare array as a complete list', () => {
    expect(parseListPage([{ id: 1 }])).toEqual({ items: [{ id: 1 }], page: undefined, perPage: undefined, totalPages: undefined });
  });

  it('is not fooled by an object without items', () => {
    expect(parseListPage({ id: 1 })).toBeUndefined();
  });
});

/** A fake list server over `all` with the given envelope, recording what was asked. */
function fakeList(all: number[], envelope: 'paging' | 'flat', defaultPerPage = 25) {
  const asked: PageQuery[] = [];
  const fetch = async (q: PageQuery): Promise<unknown> => {
    asked.push(q);
    const perPage = q.perPage ?? (q.page === undefined ? all.length : defaultPerPage);
    const page = q.page ?? 1;
    const items = all.slice((page - 1) * perPage, page * perPage);
    const totalPages = Math.max(1, Math.ceil(all.length / perPage));
    return envelope === 'paging'
      ? { items, paging: { page, perPage, totalItems: all.length, totalPages } }
      : { items, currentPage: page, totalItems: all.length, itemsPerPage: perPage };
  };
  return { asked, fetch };
}

describe('reading every page', () => {
  const items = Array.from({ length: 7 }, (_, i) => i + 1);

  it('follows totalPages with page=1..n and the chosen page size (paging envelope)', async () => {
    const server = fakeList(items, 'paging');
    await expect(readAllPages(server.fetch, { mode: 'paged', perPage: 3 }, label)).resolves.toEqual(items);
    expect(server.asked).toEqual([
      { page: 1, perPage: 3 },
      { page: 2, perPage: 3 },
      { page: 3, perPage: 3 },
    ]);
  });

  it('follows the flat envelope the same way', async () => {
    const server = fakeList(items, 'flat');
    await expect(readAllPages(server.fetch, { mode: 'paged', perPage: 2 }, label)).resolves.toEqual(items);
    expect(server.asked).toHaveLength(4);
  });

  it('asks once without page parameters when the server returns everything', async () => {
    const server = fakeList(items, 'paging');
    await expect(readAllPages(server.fetch, { mode: 'all-first', perPage: 1000 }, label)).resolves.toEqual(items);
    expect(server.asked).toEqual([{}]);
  });

  it('falls back to paging when the unpaged answer says there is more', async () => {
    const asked: PageQuery[] = [];
    const capped = async (q: PageQuery): Promise<unknown> => {
      asked.push(q);
      const page = q.page ?? 1;
      const perPage = q.perPage ?? 3;
      return { items: items.slice((page - 1) * perPage, page * perPage), paging: { page, perPage, totalItems: items.length, totalPages: 3 } };
    };
    await expect(readAllPages(capped, { mode: 'all-first', perPage: 1000 }, label)).resolves.toEqual(items);
    expect(asked).toEqual([{}, { page: 2, perPage: 3 }, { page: 3, perPage: 3 }]);
  });

  it('stops a server that keeps answering page 1', async () => {
    let calls = 0;
    const stuck = async (): Promise<unknown> => {
      calls++;
      return { items: [1, 2], paging: { page: 1, perPage: 2, totalItems: 100, totalPages: 50 } };
    };
    const err = await readAllPages(stuck, { mode: 'paged', perPage: 2 }, label).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as Error).message).toBe('transfer: GET /api/v1/users: 200 OK: asked for page 2, the server answered page 1; paging stopped');
    expect(calls).toBe(2);
  });

  it('asks for the pages a server announced a few at once after the first two, and keeps their order', async () => {
    const all = Array.from({ length: 40 }, (_, i) => i);
    let inFlight = 0;
    let most = 0;
    const asked: number[] = [];
    const slow = async (q: PageQuery): Promise<unknown> => {
      asked.push(q.page ?? 0);
      inFlight++;
      most = Math.max(most, inFlight);
      // Later pages answer sooner: the order of the items must still be the pages' order.
      await new Promise((r) => setTimeout(r, 20 - (q.page ?? 0)));
      inFlight--;
      const page = q.page ?? 1;
      return { items: all.slice((page - 1) * 2, page * 2), paging: { page, perPage: 2, totalItems: all.length, totalPages: 20 } };
    };
    await expect(readAllPages(slow, { mode: 'paged', perPage: 2 }, label)).resolves.toEqual(all);
    expect(asked.slice(0, 2)).toEqual([1, 2]);
    expect([...asked].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(most).toBe(PAGES_IN_FLIGHT);
  });

  it('stops a server that repeats the same items without page numbers', async () => {
    const repeating = async (): Promise<unknown> => ({ items: ['x'], totalItems: 10, itemsPerPage: 1 });
    await expect(readAllPages(repeating, { mode: 'paged', perPage: 1 }, label)).rejects.toThrow('page 2 repeats page 1; paging stopped');
  });

  it('stops at the hard page cap', async () => {
    let n = 0;
    const endless = async (q: PageQuery): Promise<unknown> => ({ items: [n++], paging: { page: q.page, perPage: 1, totalPages: 1_000_000 } });
    await expect(readAllPages(endless, { mode: 'paged', perPage: 1, maxPages: 5 }, label)).rejects.toThrow('more than 5 pages; paging stopped');
    expect(n).toBe(5);
  });
});

describe('clients page the way each service wants', () => {
  it('automation lists ask once, with no page parameters', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/customscripts' }).reply(
      200,
      { items: [{ ID: '1', Name: 'a' }, { ID: '2', Name: 'b' }], paging: { page: 1, perPage: 2, totalItems: 2, totalPages: 1 } },
      { headers: JSON_HEADERS },
    );
    await expect(automationClient(agent).listCustomScripts()).resolves.toHaveLength(2);
    expect(calls().filter((c) => c.path.startsWith('/api/v1/customscripts')).map((c) => c.query)).toEqual([{}]);
  });

  it('transfer lists ask perPage=1000 and follow totalPages (flat envelope)', async () => {
    const { agent, pool, calls } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    for (const page of [1, 2, 3]) {
      t.intercept({ path: '/api/v1/folders/9/acls', query: { page, perPage: 1000 } }).reply(
        200,
        { items: [{ type: 'User', id: page, name: `u${page}`, permissions: {} }], currentPage: page, totalItems: 2001, itemsPerPage: 1000 },
        { headers: JSON_HEADERS },
      );
    }
    replyDirectory(t, [1, 2, 3].map((n) => ({ id: String(n), username: `u${n}` })));
    const acls = await transferClient(agent).listFolderAcls(9);
    expect(acls.map((e) => e.id)).toEqual(['1', '2', '3']);
    expect(calls().filter((c) => c.path.startsWith('/api/v1/folders/9/acls')).map((c) => c.query)).toEqual([
      { page: '1', perPage: '1000' },
      { page: '2', perPage: '1000' },
      { page: '3', perPage: '1000' },
    ]);
  });

  it('an automation list too big for one answer is read again page by page', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    const big = 'x'.repeat(JSON_BODY_LIMIT);
    a.intercept({ path: '/api/v1/customscripts', query: {} }).reply(200, `{"items":[{"ID":"0","Name":"${big}"}]}`, { headers: JSON_HEADERS });
    for (const page of [1, 2]) {
      a.intercept({ path: '/api/v1/customscripts', query: { page, perPage: 1000 } }).reply(
        200,
        { items: [{ ID: String(page), Name: `s${page}` }], paging: { page, perPage: 1000, totalItems: 1001, totalPages: 2 } },
        { headers: JSON_HEADERS },
      );
    }
    const scripts = await automationClient(agent).listCustomScripts();
    expect(scripts.map((s) => s.Name)).toEqual(['s1', 's2']);
    expect(calls().filter((c) => c.path.startsWith('/api/v1/customscripts')).map((c) => c.query)).toEqual([{}, { page: '1', perPage: '1000' }, { page: '2', perPage: '1000' }]);
  });
});
