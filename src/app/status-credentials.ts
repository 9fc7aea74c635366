import { buildExpiryReport, DEFAULT_EXPIRING_WITHIN_DAYS } from '../credentials/expiry-report.js';
import { isMftopsError } from '../errors.js';
import { readCredentialEstate } from '../live/read-credentials.js';
import type { AutomationReader } from '../live/read-live-state.js';
import type { CredentialSection } from '../credentials/model.js';
import { readClock } from './clock.js';
import type { Host, Task } from '../services/automation/types.js';
import type { AppContext } from './context.js';

/** Options of `mftops status`. */
export interface StatusOptions {
  /** Report keys and certificates expiring within this many days (default 30). */
  readonly expiringWithinDays?: number;
}

/** The clock of the expiry report: `MFTOPS_NOW` when set, else `ctx.now`, else the system clock. */
export function expiryClock(ctx: Pick<AppContext, 'env' | 'now'>): () => Date {
  return ctx.env['MFTOPS_NOW'] ? readClock(ctx.env) : (ctx.now ?? readClock(ctx.env));
}

/**
 * The keys-and-certificates section of status and drift: read-only, at `now`. Undefined when the server has none and every list was
 * readable; a failed read is the section's error line, not the command's failure.
 */
export async function credentialSection(
  client: AutomationReader,
  now: Date,
  withinDays: number = DEFAULT_EXPIRING_WITHIN_DAYS,
  known: { readonly tasks?: readonly Task[]; readonly hosts?: readonly Host[] } = {},
): Promise<CredentialSection | undefined> {
  try {
    const estate = await readCredentialEstate(client, known);
    if (estate.credentials.length === 0 && estate.unavailable.length === 0) return undefined;
    return { ok: true, report: buildExpiryReport(estate.credentials, estate.users, now, withinDays), unavailable: estate.unavailable };
  } catch (err) {
    if (!isMftopsError(err)) throw err;
    return { ok: false, error: err.message };
  }
}
