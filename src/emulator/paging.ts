import type { FieldError } from './http.js';
import type { Json, JsonObject } from './json.js';
import type { Variants } from './state.js';

/** Page size when only `page` is given (automation §8 says "not shown"; 25 like the transfer service). */
export const DEFAULT_PAGE_SIZE = 25;
/** "All objects, up to 2147483647" (automation §4.1). */
export const MAX_ITEMS = 2147483647;

const POSITIVE_INT = /^[1-9][0-9]*$/;

function readPositive(query: URLSearchParams, key: string, errors: FieldError[]): number | undefined {
  const raw = query.get(key);
  if (raw === null) return undefined;
  if (!POSITIVE_INT.test(raw) || Number(raw) > MAX_ITEMS) {
    errors.push({ field: key, rejected: raw, message: `${key} must be a positive integer` });
    return undefined;
  }
  return Number(raw);
}

/** The common list query of the automation service (§4.1). */
export interface AutomationListQuery {
  readonly page: number;
  readonly perPage: number;
  /** The name (or issuer) mask, when given. */
  readonly mask: string | undefined;
  /** `fields=`: the top-level fields to keep, when given. */
  readonly fields: readonly string[] | undefined;
}

/** Read §4.1's query; any page/perPage combination outside the paging table is a 422. */
export function parseAutomationListQuery(
  query: URLSearchParams,
  maskParam = 'name',
): { ok: true; value: AutomationListQuery } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const page = readPositive(query, 'page', errors);
  const perPage = readPositive(query, 'perPage', errors);
  if (errors.length > 0) return { ok: false, errors };
  const fieldsRaw = query.get('fields');
  const fields =
    fieldsRaw === null
      ? undefined
      : fieldsRaw
          .split(',')
          .map((f) => f.trim())
          .filter((f) => f !== '');
  let p: number;
  let pp: number;
  if (page === undefined && perPage === undefined) {
    p = 1;
    pp = MAX_ITEMS;
  } else if (page !== undefined && perPage !== undefined) {
    p = page;
    pp = perPage;
  } else if (page === undefined) {
    p = 1;
    pp = perPage!;
  } else {
    p = page;
    pp = DEFAULT_PAGE_SIZE;
  }
  return { ok: true, value: { page: p, perPage: pp, mask: query.get(maskParam) ?? undefined, fields } };
}

/**
 * The name-mask table of automation §4.1, case-insensitive: `*`/`**` all, `*x*` contains,
 * `x*` starts with, `*x` ends with, anything else exact (an inner `*` is a literal).
 */
export function matchesNameMask(name: string, mask: string): boolean {
  const n = name.toLowerCase();
  const m = mask.toLowerCase();
  if (m === '*' || m === '**') return true;
  const starts = m.startsWith('*');
  const ends = m.endsWith('*');
  if (starts && ends) return n.includes(m.slice(1, -1));
  if (ends) return n.startsWith(m.slice(0, -1));
  if (starts) return n.endsWith(m.slice(1));
  return n === m;
}

/** Keep only the named top-level fields (case-sensitive; unknown names ignored). */
export function pickFields(item: JsonObject, fields: readonly string[] | undefined): JsonObject {
  if (!fields) return item;
  const out: JsonObject = {};
  for (const f of fields) if (Object.prototype.hasOwnProperty.call(item, f)) out[f] = item[f]!;
  return out;
}

export function compareText(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
}

/** One page of an automation list in the `automation.envelope` reading; a page past the end holds no items. */
export function automationPage<T>(
  items: readonly T[],
  q: AutomationListQuery,
  sortField: string,
  envelope: Variants['automation.envelope'],
  render: (item: T) => Json,
): Json {
  const start = (q.page - 1) * q.perPage;
  // Only the page is rendered: a 77,000-task list answered 1,000 at a time rendered every task per page.
  const pageItems = start >= items.length ? [] : items.slice(start, start + q.perPage).map(render);
  if (envelope === 'bare') return pageItems;
  return {
    items: pageItems,
    paging: { page: q.page, perPage: q.perPage, totalItems: items.length, totalPages: Math.ceil(items.length / q.perPage) },
    sorting: [{ sortField, sortDirection: 'asc' }],
  };
}

// ---------------------------------------------------------------------------------------------
// Transfer service

export type SortDirection = 'asc' | 'desc';

export interface TransferListQuery {
  readonly page: number;
  readonly perPage: number;
  /** One of the list's sort fields, spelled as the list declares it. */
  readonly sortField: string;
  readonly sortDirection: SortDirection;
}

/** Read page/perPage (default 25)/sortField/sortDirection; bad values are a 400 with `errors[]`. */
export function parseTransferListQuery(
  query: URLSearchParams,
  sortFields: readonly string[],
  defaultSort: string,
): { ok: true; value: TransferListQuery } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const page = readPositive(query, 'page', errors) ?? 1;
  const perPage = readPositive(query, 'perPage', errors) ?? DEFAULT_PAGE_SIZE;
  const rawField = query.get('sortField');
  let sortField = defaultSort;
  if (rawField !== null) {
    const found = sortFields.find((f) => f.toLowerCase() === rawField.toLowerCase());
    if (found) sortField = found;
    else errors.push({ field: 'sortField', rejected: rawField, message: `sortField must be one of ${sortFields.join(', ')}` });
  }
  const rawDir = query.get('sortDirection');
  let sortDirection: SortDirection = 'asc';
  if (rawDir !== null) {
    const d = rawDir.toLowerCase();
    if (d === 'asc' || d === 'ascending') sortDirection = 'asc';
    else if (d === 'desc' || d === 'descending') sortDirection = 'desc';
    else errors.push({ field: 'sortDirection', rejected: rawDir, message: 'sortDirection must be asc or desc' });
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: { page, perPage, sortField, sortDirection } };
}

/**
 * The transfer list envelope in the `transfer.envelope` reading: `{items, paging, sorting}` or the
 * flat `{items, currentPage, totalItems, itemsPerPage, sorting}`. `undefined` means "a page past the
 * end answers 404" (`transfer.pastLastPage=404`).
 */
export function transferPage<T>(items: readonly T[], asked: TransferListQuery, v: Variants, render: (item: T) => Json): JsonObject | undefined {
  const served = servedPageSize(asked.perPage, v['transfer.maxPerPage']);
  const q: TransferListQuery = { ...asked, perPage: served.perPage };
  const totalPages = Math.ceil(items.length / q.perPage);
  if (v['transfer.pastLastPage'] === '404' && q.page > 1 && q.page > totalPages) return undefined;
  const start = (q.page - 1) * q.perPage;
  const pageItems = start >= items.length ? [] : items.slice(start, start + q.perPage).map(render);
  // `echo` reports the size asked, and totalPages computed from it, though it served fewer.
  const reported = served.reported;
  const reportedPages = Math.ceil(items.length / reported);
  const sorting = [{ sortField: q.sortField, sortDirection: q.sortDirection }];
  const envelope = v['transfer.envelope'];
  switch (envelope) {
    case 'paging':
      return { items: pageItems, paging: { page: q.page, perPage: reported, totalItems: items.length, totalPages: reportedPages }, sorting };
    case 'flat':
      return { items: pageItems, currentPage: q.page, totalItems: items.length, itemsPerPage: reported, sorting };
    default: {
      const never: never = envelope;
      throw new Error(`unknown transfer envelope ${String(never)}`);
    }
  }
}

/** The most items a `capped`/`echo` server puts on a page (one real client pages by 200). */
export const CAPPED_PAGE_SIZE = 100;

/** The page size served and the one reported for `perPage` asked, in the `transfer.maxPerPage` reading. */
function servedPageSize(asked: number, cap: Variants['transfer.maxPerPage']): { perPage: number; reported: number } {
  switch (cap) {
    case 'asked':
      return { perPage: asked, reported: asked };
    case 'capped':
      return { perPage: Math.min(asked, CAPPED_PAGE_SIZE), reported: Math.min(asked, CAPPED_PAGE_SIZE) };
    case 'echo':
      return { perPage: Math.min(asked, CAPPED_PAGE_SIZE), reported: asked };
    default: {
      const never: never = cap;
      throw new Error(`unknown transfer.maxPerPage ${String(never)}`);
    }
  }
}

/** Glob mask of the transfer lists (`*` any run of characters), case-insensitive. */
export function matchesGlob(text: string, mask: string): boolean {
  const re = new RegExp(
    `^${mask
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    'is',
  );
  return re.test(text);
}
