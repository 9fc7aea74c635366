import { isRecord } from '../is-record.js';
import { ApiError } from './errors.js';
import type { RequestLabel } from './errors.js';

/**
 * One page of a list response, whatever envelope it came in:
 * `{items, paging: {page, perPage, totalItems, totalPages}}` (automation, newer transfer),
 * `{items, currentPage, totalItems, itemsPerPage}` (older transfer) or a bare array.
 * `page`/`totalPages`/`totalItems` are absent when the response says nothing about paging (then
 * it is complete). `perPage` is what the server reports, which may be what was asked rather than
 * what it served (a server that caps the page size and echoes the request).
 */
export interface ListPage {
  readonly items: readonly unknown[];
  readonly page: number | undefined;
  readonly perPage: number | undefined;
  /** As reported, else computed from `totalItems / perPage`. */
  readonly totalPages: number | undefined;
  readonly totalItems: number | undefined;
}

const COMPLETE = { page: undefined, perPage: undefined, totalPages: undefined, totalItems: undefined } as const;

/** The page in `body`, or undefined when it is not a list at all. An empty body is an empty list. */
export function parseListPage(body: unknown): ListPage | undefined {
  if (body === undefined || body === null) return { items: [], ...COMPLETE };
  if (Array.isArray(body)) return { items: body, ...COMPLETE };
  if (!isRecord(body) || !Array.isArray(body.items)) return undefined;
  const items = body.items;
  // The `paging` object wins; a field it lacks is looked for at the top level (flat envelope).
  const p = isRecord(body.paging) ? body.paging : {};
  const field = (...names: string[]): number | undefined => {
    for (const n of names) {
      const v = num(p[n]) ?? num(body[n]);
      if (v !== undefined) return v;
    }
    return undefined;
  };
  const perPage = field('perPage', 'itemsPerPage', 'pageSize');
  const totalItems = field('totalItems', 'totalCount', 'total');
  const page = field('page', 'currentPage', 'pageNumber');
  return { items, page, perPage, totalPages: field('totalPages', 'pageCount') ?? pagesFor(totalItems, perPage), totalItems };
}

function pagesFor(totalItems: number | undefined, perPage: number | undefined): number | undefined {
  if (totalItems === undefined || perPage === undefined) return undefined;
  if (perPage <= 0) return 1;
  return Math.max(1, Math.ceil(totalItems / perPage));
}

function num(x: unknown): number | undefined {
  if (typeof x === 'number' && Number.isFinite(x)) return x;
  if (typeof x === 'string' && /^\d+$/.test(x)) return Number(x);
  return undefined;
}

/** How to walk a list. */
export interface PagingPlan {
  /**
   * `all-first`: ask without page/perPage (the automation reference answers everything at once)
   * and page only if the answer says there is more. `paged`: ask `page=1..n&perPage=` from the start.
   */
  readonly mode: 'all-first' | 'paged';
  /**
   * Page size asked for by `paged` on page 1 (transfer: 1000). Later pages ask for the size the
   * server served: a server that caps it (asked 1000, served 100) is followed, not believed done.
   */
  readonly perPage: number;
  /** Hard stop against a server that never ends. Default 10 000. */
  readonly maxPages?: number;
  /** Whole reads of a list that changed while it was read, before giving up. Default LIST_READ_ATTEMPTS. */
  readonly readAttempts?: number;
}

export type PageQuery = { readonly page?: number; readonly perPage?: number };

/** Whole reads of a list before one that held still is given up on (README, reliability). */
export const LIST_READ_ATTEMPTS = 3;

/**
 * A paged list that changed under every read of the budget: no answer can be trusted to hold each
 * item exactly once, so the command stops (and writes nothing) rather than act on it.
 */
export class ListChangedError extends ApiError {}

/** Thrown inside one read when the pages contradict each other; the read is started over. */
class ListMoved extends Error {}

/**
 * Every item of a list, page after page, stopping when the server's totals are reached (never by
 * waiting for an error). Pages follow the page size the server served, not the one asked.
 *
 * A list that changes while it is read (its totalItems moves, an item shows up on two pages, a page
 * before the last is short, the items do not add up to totalItems) is read again from page 1, up to
 * `readAttempts` times; then a `ListChangedError` names the list. A server that answers another page
 * than asked, repeats the previous page, or goes past the page cap stops the read with an `ApiError`
 * naming the request (`label` is asked only then).
 */
export async function readAllPages(fetchPage: (q: PageQuery) => Promise<unknown>, plan: PagingPlan, label: () => RequestLabel): Promise<unknown[]> {
  const attempts = plan.readAttempts ?? LIST_READ_ATTEMPTS;
  const fail = (note: string): never => {
    throw new ApiError({ ...label(), status: 200, body: { fieldErrors: [], note: `${note}; paging stopped` } });
  };
  const read = async (q: PageQuery): Promise<ListPage> => {
    const body = await fetchPage(q);
    const page = parseListPage(body);
    return page ?? fail(`expected a list (items), got ${Array.isArray(body) ? 'array' : typeof body}`);
  };
  let last = '';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      return await readOnce(read, plan, fail);
    } catch (err) {
      if (!(err instanceof ListMoved)) throw err;
      last = err.message;
    }
  }
  const note = `the list changed while it was read, ${attempts} reads in a row (last: ${last}); paging stopped`;
  throw new ListChangedError({ ...label(), status: 200, body: { fieldErrors: [], note } });
}

/** One read of the whole list; `ListMoved` when its pages contradict each other. */
async function readOnce(read: (q: PageQuery) => Promise<ListPage>, plan: PagingPlan, fail: (note: string) => never): Promise<unknown[]> {
  const maxPages = plan.maxPages ?? 10_000;
  const moved = (note: string): never => {
    throw new ListMoved(note);
  };
  const first = await read(plan.mode === 'all-first' ? {} : { page: 1, perPage: plan.perPage });
  if (plan.mode === 'paged' && first.page !== undefined && first.page !== 1) fail(`asked for page 1, the server answered page ${first.page}`);
  const all: unknown[] = [];
  pushAll(all, first.items);
  const total = first.totalItems;
  if (total === undefined && (first.totalPages === undefined || first.page === undefined)) return all;
  if (first.items.length === 0) return total === undefined || total === 0 ? all : moved(`page 1 is empty, the server reported totalItems ${total}`);
  if (total !== undefined && first.items.length >= total)
    return all.length === total ? all : moved(`page 1 holds ${all.length} items, the server reported totalItems ${total}`);
  // More follow, so page 1 is full: its length is the server's page size, whatever `perPage` says
  // (a server that caps the size may echo the size asked, or the `all-first` "everything").
  const size = first.items.length;
  let pages = total !== undefined ? Math.ceil(total / size) : (first.totalPages ?? 1);
  if (pages <= 1) return all;

  const keys = new Map<string, number>();
  noteKeys(keys, first.items, 1, moved);
  let previous = pageSignature(first.items);
  let page = 2;
  /** Checks page `p` (asked as `page`) against the ones before; true when it is the last. */
  const take = (p: ListPage): boolean => {
    if (p.page !== undefined && p.page !== page) fail(`asked for page ${page}, the server answered page ${p.page}`);
    const signature = pageSignature(p.items);
    if (p.items.length > 0 && signature === previous) fail(`page ${page} repeats page ${page - 1}`);
    previous = signature;
    if (total !== undefined && p.totalItems !== undefined && p.totalItems !== total) moved(`totalItems went from ${total} to ${p.totalItems} at page ${page}`);
    noteKeys(keys, p.items, page, moved);
    pushAll(all, p.items);
    if (total === undefined) {
      pages = p.totalPages ?? pages;
      return page >= pages || p.items.length === 0;
    }
    if (page < pages && p.items.length !== size) moved(`page ${page} of ${pages} holds ${p.items.length} items, not ${size}`);
    if (page < pages) return false;
    if (all.length !== total) moved(`read ${all.length} items, the server reported totalItems ${total}`);
    return true;
  };
  for (let pagesRead = 1; ; ) {
    if (pagesRead >= maxPages) fail(`more than ${maxPages} pages`);
    // Two pages read one by one show the server pages as asked; the rest it announced are then
    // asked for a few at once and checked in order as if read one by one (100 pages: 100 ÷
    // PAGES_IN_FLIGHT round trips instead of 100).
    if (pagesRead >= 2 && pages > page && pages <= maxPages) {
      const ahead = await readPagesAhead(page, pages, (n) => read({ page: n, perPage: size }));
      for (const p of ahead) {
        if (take(p)) return all;
        page++;
        pagesRead++;
      }
      continue;
    }
    const p = await read({ page, perPage: size });
    if (take(p)) return all;
    page++;
    pagesRead++;
  }
}

/**
 * Records the keys of `items` (of page `page`); an item a page before this one held means the list
 * moved under the read. Items without an id are not checked (a repeated page still is).
 */
function noteKeys(keys: Map<string, number>, items: readonly unknown[], page: number, moved: (note: string) => never): void {
  for (const item of items) {
    const key = itemKey(item);
    if (key === undefined) continue;
    const seen = keys.get(key);
    if (seen !== undefined && seen !== page) moved(`page ${page} holds an item page ${seen} held (${key})`);
    keys.set(key, page);
  }
}

/** `type:id` of a list item (ACL entries of a user and a group may share an id). */
function itemKey(item: unknown): string | undefined {
  if (!isRecord(item)) return undefined;
  const id = item.id ?? item.ID ?? item.ACLID;
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  const type = item.type ?? item.Type;
  return typeof type === 'string' ? `${type.toLowerCase()}:${id}` : `id ${id}`;
}

/**
 * What tells a repeated page from the next one: its size and its first and last items. Pages of a
 * list hold different objects, so a page equal in these is the same page again; stringifying
 * whole pages cost a 77-page task list 100 MB of text (0.4 s of CPU at 100,000 objects).
 */
function pageSignature(items: readonly unknown[]): string {
  return JSON.stringify([items.length, items[0], items[items.length - 1]]);
}

/** Pages a read keeps in flight once it knows how many there are. */
export const PAGES_IN_FLIGHT = 8;

/** Pages `from`..`to`, in order, at most PAGES_IN_FLIGHT asked at once. */
async function readPagesAhead(from: number, to: number, read: (page: number) => Promise<ListPage>): Promise<ListPage[]> {
  const out: ListPage[] = [];
  let next = from;
  const worker = async (): Promise<void> => {
    while (next <= to) {
      const n = next++;
      out[n - from] = await read(n);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PAGES_IN_FLIGHT, Math.max(0, to - from + 1)) }, worker));
  return out;
}

/** `items` appended to `all` (a spread of 100,000 arguments overflows the stack). */
function pushAll(all: unknown[], items: readonly unknown[]): void {
  for (const item of items) all.push(item);
}
