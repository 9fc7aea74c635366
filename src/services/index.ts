/**
 * The HTTP layer: the only code that talks to the two servers (and the only importer of undici).
 * Everything else receives a client from here, or its read-only view.
 */
import { toReadonlyAutomationClient } from './automation/client.js';
import type { AutomationClient, ReadonlyAutomationClient } from './automation/client.js';
import { toReadonlyTransferClient } from './transfer/client.js';
import type { ReadonlyTransferClient, TransferClient } from './transfer/client.js';

export { AUTOMATION_READ_METHODS, createAutomationClient, toReadonlyAutomationClient } from './automation/client.js';
export type { AutomationClient, AutomationReadMethod, ReadonlyAutomationClient } from './automation/client.js';
export type * from './automation/types.js';
export { normalizeParameters, readAcl, readTask, unwrapHost } from './automation/normalize.js';
export type { AutomationWireForms } from './automation/normalize.js';
export { TRANSFER_READ_METHODS, createTransferClient, toReadonlyTransferClient } from './transfer/client.js';
export type { ReadonlyTransferClient, TransferClient, TransferReadMethod } from './transfer/client.js';
export type * from './transfer/types.js';
export type { ClientOptions } from './connection.js';
export { parseBaseUrl } from './connection.js';
export { ApiError, AuthError, NetworkError, TimeoutError } from './errors.js';
export type { FieldError, HttpMethod, RequestOutcome, ServiceName } from './errors.js';
export { parseListPage, readAllPages } from './paging.js';
export type { ListPage, PagingPlan } from './paging.js';
export type { RetryOptions } from './retry.js';
export { closeAllSessions, countOpenSessions, installShutdownHandlers } from './session.js';
export type { ShutdownOptions } from './session.js';
export { createDispatcher } from './transport.js';
export type { DispatcherOptions, Timeouts } from './transport.js';

/** The read-only view of a client: a new object with only its read methods. */
export function toReadonly(client: AutomationClient): ReadonlyAutomationClient;
export function toReadonly(client: TransferClient): ReadonlyTransferClient;
export function toReadonly(client: AutomationClient | TransferClient): ReadonlyAutomationClient | ReadonlyTransferClient {
  switch (client.service) {
    case 'automation':
      return toReadonlyAutomationClient(client);
    case 'transfer':
      return toReadonlyTransferClient(client);
    default: {
      const never: never = client;
      throw new Error(`unknown client ${String(never)}`);
    }
  }
}
