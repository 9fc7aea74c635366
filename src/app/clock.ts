import { ConfigError } from '../errors.js';

/**
 * The one clock of the use cases that compare against the servers' calendars (schedules, change
 * windows, key expiry). `MFTOPS_NOW` (an ISO instant) pins it for tests and for a dry look at
 * "what would apply say at 01:55 on Saturday"; it is never needed in production. An unreadable
 * value is refused rather than silently ignored, since a wrong clock moves a change window; so is
 * one without `Z` or an offset, which would be read in the runner's zone.
 */
export function readClock(env: Readonly<Record<string, string | undefined>>): () => Date {
  const pinned = env['MFTOPS_NOW'];
  if (pinned === undefined || pinned === '') return () => new Date();
  const ms = Date.parse(pinned);
  if (!Number.isFinite(ms)) throw new ConfigError(`MFTOPS_NOW is not an ISO instant: ${JSON.stringify(pinned)}`);
  if (!/(?:Z|[+-]\d{2}:?\d{2})$/i.test(pinned.trim()))
    throw new ConfigError(
      `MFTOPS_NOW has no Z or offset, so it would be read in this machine's zone: ${JSON.stringify(pinned)} (write e.g. 2026-11-28T01:55:00Z)`,
    );
  return () => new Date(ms);
}
