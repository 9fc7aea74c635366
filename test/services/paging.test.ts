import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/services/errors.js';
import { JSON_BODY_LIMIT } from '../../src/services/transport.js';
import { LIST_READ_ATTEMPTS, ListChangedError, PAGES_IN_FLIGHT, parseListPage, readAllPages } from '../../src/services/paging.js';
import type { PageQuery } from '../../src/services/paging.js';
import { AUTOMATION, JSON_HEADERS, TRANSFER, automationClient, createMock, replyDirectory, replyToken, transferClient } from './helpers.js';

const label = () => ({ service: 'transfer' as const, method: 'GET' as const, path: '/api/v1/users' });

describe('list envelopes', () => {
  it('reads the paging envelope', () => {
    const page = parseListPage({ items: [1, 2], paging: { page: 1, perPage: 2, totalItems: 5, totalPages: 3 }, sorting: [] });
    expect(page).toEqual({ items: [1, 2], page: 1, perPage: 2, totalPages: 3, totalItems: 5 });
  });

  it('reads the flat envelope and computes totalPages from totalItems / itemsPerPage', () => {
    const page = parseListPage({ items: ['a'], currentPage: 2, totalItems: 51, itemsPerPage: 25, sorting: [] });
    expect(page).toEqual({ items: ['a'], page: 2, perPage: 25, totalPages: 3, totalItems: 51 });
  });

  it('reads a bare array as a complete list', () => {
    expect(parseListPage([{ id: 1 }])).toEqual({ items: [{ id: 1 }], page: undefined, perPage: undefined, totalPages: undefined, totalItems: undefined });
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

/**
 * A flat-envelope list server over `entries` that serves at most `cap` a page and reports what it
 * was asked (`echo`) or what it served; `before(n)` runs before the n-th request (1-based) and may
 * change the list, as another client writing between page reads would.
 */
function movingList(
  entries: { type: string; id: number }[],
  opts: { cap?: number; echo?: boolean; before?: (n: number, list: { type: string; id: number }[]) => void } = {},
) {
  const asked: PageQuery[] = [];
  const fetch = async (q: PageQuery): Promise<unknown> => {
    asked.push(q);
    opts.before?.(asked.length, entries);
    const askedSize = q.perPage ?? 2147483647;
    const size = Math.min(askedSize, opts.cap ?? Infinity);
    const page = q.page ?? 1;
    const items = entries.slice((page - 1) * size, page * size);
    return { items, currentPage: page, totalItems: entries.length, itemsPerPage: opts.echo ? askedSize : size };
  };
  return { asked, fetch };
}

const entries = (n: number, from = 1) => Array.from({ length: n }, (_, i) => ({ type: 'User', id: from + i }));
const ids = (items: unknown[]) => items.map((e) => (e as { id: number }).id);

describe('paging follows what the server served', () => {
  it('a server that caps perPage and echoes the size asked is read to the end (asked 1000, got 100, totalItems 300)', async () => {
    const server = movingList(entries(300), { cap: 100, echo: true });
    const all = await readAllPages(server.fetch, { mode: 'paged', perPage: 1000 }, label);
    expect(ids(all)).toEqual(ids(entries(300)));
    expect(server.asked).toEqual([
      { page: 1, perPage: 1000 },
      { page: 2, perPage: 100 },
      { page: 3, perPage: 100 },
    ]);
  });

  it('a capped paging envelope whose totalPages was computed from the echoed size is read to the end', async () => {
    const all = entries(250);
    const fetch = async (q: PageQuery): Promise<unknown> => {
      const page = q.page ?? 1;
      const items = all.slice((page - 1) * 100, page * 100);
      return {
        items,
        paging: { page, perPage: q.perPage ?? 2147483647, totalItems: all.length, totalPages: Math.ceil(all.length / (q.perPage ?? 2147483647)) },
      };
    };
    expect(ids(await readAllPages(fetch, { mode: 'all-first', perPage: 1000 }, label))).toEqual(ids(all));
    expect(ids(await readAllPages(fetch, { mode: 'paged', perPage: 1000 }, label))).toEqual(ids(all));
  });

  it('reads the other envelope spellings: paging fields at the top level, totalCount, pageSize', () => {
    expect(parseListPage({ items: [1], page: '2', perPage: '1', totalItems: '3' })).toEqual({ items: [1], page: 2, perPage: 1, totalPages: 3, totalItems: 3 });
    expect(parseListPage({ items: [1], pageNumber: 1, pageSize: 1, totalCount: 2 })).toEqual({ items: [1], page: 1, perPage: 1, totalPages: 2, totalItems: 2 });
    expect(parseListPage({ items: [1], paging: { page: 1, perPage: 1 }, totalItems: 4 })).toEqual({
      items: [1],
      page: 1,
      perPage: 1,
      totalPages: 4,
      totalItems: 4,
    });
  });
});

describe('a list that changes while it is read', () => {
  it('an entry added at the front between page reads is noticed and the list read again: every entry once', async () => {
    let added = 0;
    const server = movingList(entries(130), {
      before: (n, list) => {
        if (n === 2 && added++ === 0) list.unshift({ type: 'User', id: 1000 });
      },
    });
    const all = await readAllPages(server.fetch, { mode: 'paged', perPage: 100 }, label);
    expect(ids(all)).toEqual([1000, ...ids(entries(130))]);
    expect(server.asked.filter((q) => q.page === 1)).toHaveLength(2);
  });

  it('an entry removed from the front between page reads is noticed (one entry would be skipped)', async () => {
    const server = movingList(entries(130), { before: (n, list) => void (n === 2 && list.shift()) });
    const all = await readAllPages(server.fetch, { mode: 'paged', perPage: 100 }, label);
    expect(ids(all)).toEqual(ids(entries(129, 2)));
  });

  it('an entry seen on two pages while totalItems holds is noticed (one added at the front, one removed at the end)', async () => {
    const server = movingList(entries(130), {
      before: (n, list) => {
        if (n !== 2) return;
        list.unshift({ type: 'User', id: 1000 });
        list.pop();
      },
    });
    await readAllPages(server.fetch, { mode: 'paged', perPage: 100 }, label);
    expect(server.asked.filter((q) => q.page === 1)).toHaveLength(2);
  });

  it('a page shorter than the page size before the last, or items that do not add up to totalItems, is read again', async () => {
    let glitches = 0;
    const short = async (q: PageQuery): Promise<unknown> => {
      const page = q.page ?? 1;
      const all = entries(5);
      let items = all.slice((page - 1) * 2, page * 2);
      if (page === 2 && glitches++ === 0) items = items.slice(1);
      return { items, currentPage: page, totalItems: 5, itemsPerPage: 2 };
    };
    expect(ids(await readAllPages(short, { mode: 'paged', perPage: 2 }, label))).toEqual([1, 2, 3, 4, 5]);
    expect(glitches).toBe(2); // page 2 read twice: short the first time

    const missing = async (q: PageQuery): Promise<unknown> => {
      const page = q.page ?? 1;
      return { items: entries(6).slice((page - 1) * 2, Math.min(page * 2, 5)), currentPage: page, totalItems: 6, itemsPerPage: 2 };
    };
    await expect(readAllPages(missing, { mode: 'paged', perPage: 2 }, label)).rejects.toThrow('read 5 items, the server reported totalItems 6');
  });

  it('a list that never holds still fails after LIST_READ_ATTEMPTS reads, naming the list', async () => {
    let next = 1000;
    const server = movingList(entries(130), { before: (n, list) => void (n % 2 === 0 && list.unshift({ type: 'User', id: next++ })) });
    const err = await readAllPages(server.fetch, { mode: 'paged', perPage: 100 }, label).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ListChangedError);
    expect((err as Error).message).toBe(
      'transfer: GET /api/v1/users: 200 OK: the list changed while it was read, 3 reads in a row (last: totalItems went from 132 to 133 at page 2); paging stopped',
    );
    expect(server.asked.filter((q) => q.page === 1)).toHaveLength(LIST_READ_ATTEMPTS);
    const budget = movingList(entries(130), { before: (n, list) => void (n % 2 === 0 && list.unshift({ type: 'User', id: next++ })) });
    await expect(readAllPages(budget.fetch, { mode: 'paged', perPage: 100, readAttempts: 1 }, label)).rejects.toThrow(ListChangedError);
    expect(budget.asked).toHaveLength(2);
  });

  it('a user and a group with the same id on two pages are two entries, not one seen twice', async () => {
    const server = movingList(
      [
        { type: 'User', id: 7 },
        { type: 'Group', id: 7 },
      ],
      {},
    );
    expect(await readAllPages(server.fetch, { mode: 'paged', perPage: 1 }, label)).toHaveLength(2);
  });
});

describe('clients page the way each service wants', () => {
  it('automation lists ask once, with no page parameters', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/customscripts' }).reply(
      200,
      {
        items: [
          { ID: '1', Name: 'a' },
          { ID: '2', Name: 'b' },
        ],
        paging: { page: 1, perPage: 2, totalItems: 2, totalPages: 1 },
      },
      { headers: JSON_HEADERS },
    );
    await expect(automationClient(agent).listCustomScripts()).resolves.toHaveLength(2);
    expect(
      calls()
        .filter((c) => c.path.startsWith('/api/v1/customscripts'))
        .map((c) => c.query),
    ).toEqual([{}]);
  });

  it('transfer lists ask perPage=1000 and follow totalPages (flat envelope)', async () => {
    const { agent, pool, calls } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    // 2001 entries, 1000 a page: the last page holds one.
    const ids = Array.from({ length: 2001 }, (_, i) => i + 1);
    for (const page of [1, 2, 3]) {
      const items = ids.slice((page - 1) * 1000, page * 1000).map((id) => ({ type: 'User', id, name: `u${id}`, permissions: {} }));
      t.intercept({ path: '/api/v1/folders/9/acls', query: { page, perPage: 1000 } }).reply(
        200,
        { items, currentPage: page, totalItems: 2001, itemsPerPage: 1000 },
        { headers: JSON_HEADERS },
      );
    }
    replyDirectory(
      t,
      ids.map((n) => ({ id: String(n), username: `u${n}` })),
    );
    const acls = await transferClient(agent).listFolderAcls(9);
    expect(acls.map((e) => e.id)).toEqual(ids.map(String));
    expect(
      calls()
        .filter((c) => c.path.startsWith('/api/v1/folders/9/acls'))
        .map((c) => c.query),
    ).toEqual([
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
    const names = Array.from({ length: 1001 }, (_, i) => `s${i + 1}`);
    for (const page of [1, 2]) {
      const items = names.slice((page - 1) * 1000, page * 1000).map((Name) => ({ ID: Name.slice(1), Name }));
      a.intercept({ path: '/api/v1/customscripts', query: { page, perPage: 1000 } }).reply(
        200,
        { items, paging: { page, perPage: 1000, totalItems: 1001, totalPages: 2 } },
        { headers: JSON_HEADERS },
      );
    }
    const scripts = await automationClient(agent).listCustomScripts();
    expect(scripts.map((s) => s.Name)).toEqual(names);
    expect(
      calls()
        .filter((c) => c.path.startsWith('/api/v1/customscripts'))
        .map((c) => c.query),
    ).toEqual([{}, { page: '1', perPage: '1000' }, { page: '2', perPage: '1000' }]);
  });
});
