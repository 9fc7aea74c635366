import type { RunningEmulator } from '../../src/emulator/index.js';
import { Secret } from '../../src/secret.js';
import { createAutomationClient, createTransferClient, type AutomationClient, type ClientOptions, type TransferClient } from '../../src/services/index.js';
import { EXAMPLE_SEED_FILES } from '../helpers/emulator-test-api.js';

/** The example estate in an emulator on a free loopback port (kept here for the tests that import it from here). */
export { startSeededEmulator } from '../helpers/emulator-test-api.js';
export const SEED_PATH = EXAMPLE_SEED_FILES.production;

/** Passwords of the example seed's accounts (examples/seed/emulator-seed.json). */
export const SEED_LOGINS = {
  automationAdmin: { username: 'admin', password: 'admin-Pa55!seed' },
  automationOperator: { username: 'operator', password: 'operator-Pa55!seed' },
  transferAdmin: { username: 'admin', password: 'xfer-admin-Pa55!seed' },
} as const;

/** Clients without retries unless `options` gives a retry policy (and a clock). */
type ClientOverrides = Pick<ClientOptions, 'retry' | 'now'>;

export function automationClientFor(
  emulator: RunningEmulator,
  login: { username: string; password: string } = SEED_LOGINS.automationAdmin,
  options: ClientOverrides = {},
): AutomationClient {
  return createAutomationClient({
    url: emulator.automationUrl,
    username: login.username,
    password: new Secret(login.password),
    retry: { maxAttempts: 1 },
    ...options,
  });
}

export function transferClientFor(emulator: RunningEmulator, options: ClientOverrides = {}): TransferClient {
  return createTransferClient({
    url: emulator.transferUrl,
    username: SEED_LOGINS.transferAdmin.username,
    password: new Secret(SEED_LOGINS.transferAdmin.password),
    retry: { maxAttempts: 1 },
    ...options,
  });
}
