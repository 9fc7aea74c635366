import type { TokenLifetimes } from './auth.js';
import type { ApiRequest, ApiResponse, FieldError } from './http.js';
import { isJsonRequest, jsonResponse, parseJsonBody, transferError } from './http.js';
import type { Json, JsonObject } from './json.js';
import type { ListChurn } from './list-churn.js';
import type { TransferListQuery } from './paging.js';
import { compareText, parseTransferListQuery, transferPage } from './paging.js';
import type { EmulatorState, TransferState, TransferUser, Variants } from './state.js';

/*
 * What every transfer handler shares (transfer.ts: tokens, folders and ACLs; transfer-users.ts:
 * users, groups and memberships): the request context, the error answers, list paging, bodies.
 */

export interface TransferRuntime {
  readonly state: EmulatorState;
  readonly lifetimes: TokenLifetimes;
  /** Lists that change while they are read (`listChurn` option); undefined: they hold still. */
  readonly churn?: ListChurn | undefined;
}

export interface Ctx {
  readonly req: ApiRequest;
  readonly rt: TransferRuntime;
  readonly t: TransferState;
  /** The readings the answers are encoded in and bodies decoded from. */
  readonly v: Variants;
  readonly caller: TransferUser;
}

export const err = transferError;

/** Users and groups listing, every user and group write: Admin and SysAdmin. */
export function isUserAdmin(u: TransferUser): boolean {
  return u.permission === 'Admin' || u.permission === 'SysAdmin';
}
/** Sees and manages every folder: FileAdmin, Admin, SysAdmin. */
export function isFolderAdmin(u: TransferUser): boolean {
  return u.permission === 'FileAdmin' || isUserAdmin(u);
}

export function badQuery(errors: FieldError[]): ApiResponse {
  return err(400, errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors);
}

export function invalid(errors: FieldError[]): ApiResponse {
  return err(422, errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors);
}

/** Sort, page and answer a list; a page past the end is a 404 on `transfer.pastLastPage=404`. */
export function listResponse<T>(
  c: Ctx,
  items: readonly T[],
  sortFields: readonly string[],
  defaultSort: string,
  sortValue: (t: T, field: string) => string,
  render: (t: T) => Json,
): ApiResponse {
  const q = parseTransferListQuery(c.req.query, sortFields, defaultSort);
  if (!q.ok) return badQuery(q.errors);
  const sorted = sortItems(items, q.value, sortValue);
  const page = transferPage(sorted, q.value, c.v, render);
  return page ? jsonResponse(200, page) : err(404, `page ${q.value.page} is past the last page`);
}

/**
 * The last sort made with each sort-value function: the items and their values it was made of, and
 * its order. A paged read asks once per page, and sorting every folder per page (lower-casing both
 * names per comparison) made the emulator's CPU per request grow with the estate (issue 29). Reused
 * only for the same field and direction while every item is the same object with the same value, so
 * it is the order sorting again gives; a closure made per request (a folder's ACL) never hits.
 */
const lastSorts = new WeakMap<
  object,
  { readonly field: string; readonly dir: number; readonly items: readonly unknown[]; readonly values: readonly string[]; readonly sorted: readonly unknown[] }
>();

/** `items` in `q`'s order: by sort value, case-insensitively, then by case; stable. */
export function sortItems<T>(items: readonly T[], q: TransferListQuery, sortValue: (t: T, field: string) => string): readonly T[] {
  const dir = q.sortDirection === 'asc' ? 1 : -1;
  const values = items.map((t) => sortValue(t, q.sortField));
  const last = lastSorts.get(sortValue);
  if (last !== undefined && last.field === q.sortField && last.dir === dir && isUnchanged(items, values, last)) return last.sorted as readonly T[];
  // Lower-cased once per item (compareText lower-cases both per comparison); same comparison, same stable order.
  const keyed = items.map((item, i) => ({ item, value: values[i]!, lower: values[i]!.toLowerCase() }));
  keyed.sort((x, y) => dir * (x.lower < y.lower ? -1 : x.lower > y.lower ? 1 : compareText(x.value, y.value)));
  const sorted = keyed.map((k) => k.item);
  lastSorts.set(sortValue, { field: q.sortField, dir, items: [...items], values, sorted });
  return sorted;
}

function isUnchanged(
  items: readonly unknown[],
  values: readonly string[],
  last: { readonly items: readonly unknown[]; readonly values: readonly string[] },
): boolean {
  if (last.items.length !== items.length) return false;
  for (let i = 0; i < items.length; i++) if (items[i] !== last.items[i] || values[i] !== last.values[i]) return false;
  return true;
}

export function jsonBody(c: Ctx): { ok: true; value: unknown } | { ok: false; response: ApiResponse } {
  if (c.req.body.length > 0 && !isJsonRequest(c.req)) return { ok: false, response: err(415, 'the body must be application/json or text/json') };
  const parsed = parseJsonBody(c.req);
  if (!parsed.ok) return { ok: false, response: err(400, parsed.detail) };
  return { ok: true, value: parsed.value };
}

/** FolderDetailsModel settings of a new folder. */
export function folderDetailDefaults(): JsonObject {
  return {
    description: '',
    allowFileOverwrite: true,
    cleanTimeDays: 0,
    cleanType: 'Never',
    deliveryRecepientNotificationType: 'None',
    enforceUniqueFilenames: false,
    fileMaskRule: 'AllowExceptMatching',
    fileMasks: '',
    isShared: false,
    lastContentChangeTime: '2026-01-05T08:00:00Z',
    newFileNotificationTime: 0,
    newFileNotificationType: 'None',
    newTime: 1,
    orgId: 0,
    quota: 0,
    responseText: '',
    responseTime: 0,
    responseType: 'RedirectImmediately',
    subfolderCleanTime: 0,
    systemType: 'User',
    uploadNotificationConfirmationTime: 0,
    uploadNotificationConfirmationType: 'None',
  };
}
