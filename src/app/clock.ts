import { ConfigError } from '../errors.js';

/**
 * The one clock of the use cases that compare against the servers' calendars (schedules, change
 * windows, key expiry). `MFTOPS_NOW` (an ISO instant) pins it for tests and for a dry look at
 * "what would apply say at 01:55 on Saturday"; it is never needed in production. An unreadable
 * value is refused rather than silently ignored, since a wrong clock moves a change window.
 */
export function readClock(env: Readonly<Record<string, string | undefined>>): () => Date {
  const pinned = env['MFTOPS_NOW'];
  if (pinned === undefined || pinned === '') return () => new Date();
  const ms = Date.parse(pinned);
  if (!Number.isFinite(ms)) throw new ConfigError(`MFTOPS_NOW is not an ISO instant: ${JSON.stringify(pinned)}`);
  return () => new Date(ms);
}
