import { buildExpiryReport, DEFAULT_EXPIRING_WITHIN_DAYS } from '../credentials/expiry-report.js';
import { isMftopsError } from '../errors.js';
import { readCredentialEstate } from '../live/read-credentials.js';
import type { AutomationReader } from '../live/read-live-state.js';
import type { CredentialSection } from '../render/credential-expiry.js';
import { readClock } from './clock.js';
import type { AppContext } from './context.js';

/** Options of `mftops status`. */
export interface StatusOptions {
  /** Report keys and certificates expiring within this many days (default 30). */
  readonly expiringWithinDays?: number;
}

/**
 * The keys-and-certificates section of status and drift: read-only, on the clock of `MFTOPS_NOW`
 * (else `ctx.now`, else the system clock). Undefined when the server has none and every list was
 * readable; a failed read is the section's error line, not the command's failure.
 */
export async function credentialSection(
  client: AutomationReader,
  ctx: Pick<AppContext, 'env' | 'now'>,
  withinDays: number = DEFAULT_EXPIRING_WITHIN_DAYS,
): Promise<CredentialSection | undefined> {
  const now = ctx.env['MFTOPS_NOW'] ? readClock(ctx.env)() : (ctx.now ?? readClock(ctx.env))();
  try {
    const estate = await readCredentialEstate(client);
    if (estate.credentials.length === 0 && estate.unavailable.length === 0) return undefined;
    return { ok: true, report: buildExpiryReport(estate.credentials, estate.users, now, withinDays), unavailable: estate.unavailable };
  } catch (err) {
    if (!isMftopsError(err)) throw err;
    return { ok: false, error: err.message };
  }
}
