/**
 * How a request may be repeated after a failure.
 *
 * - `read`: changes nothing (GET, token grants, report POSTs): retried on 429, 5xx, resets and
 *   timeouts, with backoff and `Retry-After`.
 * - `write`: never retried on 5xx, resets or timeouts, whose outcome is unknown: the apply executor
 *   re-reads the object by identity first, so that a retry never duplicates it. A 429 is a refusal
 *   (the server did not process the request), so a write is retried on it like a read.
 * - `idempotent`: a write whose second copy leaves the same state as the first (`PUT /config`
 *   replaces the whole configuration with the body sent), so an unknown outcome is simply sent
 *   again: retried like a read.
 *
 * Whatever the class, a 401 to a session's access token is answered with a new token and one more
 * attempt: the server did not process the request (see `Transport.send`).
 */
export type RetryClass = 'read' | 'write' | 'idempotent';

/**
 * Whether a request of this class is sent again after this status: any class after a 429 (nothing
 * was processed); reads and idempotent writes after 5xx too.
 */
export function retriesStatus(retry: RetryClass, status: number): boolean {
  return status === 429 || (retriesTransientFailures(retry) && isRetryableStatus(status));
}

/**
 * A status that says "too many requests, slow down": it halves the requests in flight
 * (`AdaptiveLimit`). A 429, and a 503 with `Retry-After`, are retried until the time budget is
 * spent whatever the attempt count: the server said when to come back.
 */
export function isThrottleStatus(status: number): boolean {
  return status === 429 || status === 503;
}

/** Whether a request of this class is sent again after a 5xx, reset or timeout. */
export function retriesTransientFailures(retry: RetryClass): boolean {
  switch (retry) {
    case 'read':
    case 'idempotent':
      return true;
    case 'write':
      return false;
    default: {
      const never: never = retry;
      throw new Error(`unknown retry class ${String(never)}`);
    }
  }
}

/**
 * Retry policy of one transport: the attempt bound and time budget apply to every retry of a
 * request (backoffs and 401 refreshes alike). Every field has a default; `sleep` and `random` are
 * injectable so tests are fast and deterministic.
 */
export interface RetryOptions {
  /**
   * Attempts in total, the first included, counting failures other than throttling (5xx, resets,
   * timeouts). Default 5. A 429, and a 503 with `Retry-After`, do not count: they are retried as
   * long as the budget lasts, since the server said when to come back.
   */
  readonly maxAttempts?: number;
  /**
   * No retry starts that would begin later than this after the first attempt: the total retry
   * budget of one request. Default 60 000 ms (`MFTOPS_RETRY_BUDGET_MS`).
   */
  readonly budgetMs?: number;
  /** Backoff base: the cap of the delay before retry n is `baseDelayMs * 2^(n-1)`. Default 250 ms. */
  readonly baseDelayMs?: number;
  /** Backoff ceiling. Default 10 000 ms. */
  readonly maxDelayMs?: number;
  /** A `Retry-After` above this is cut to it. Default 30 000 ms. */
  readonly retryAfterCapMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Uniform in [0, 1); full jitter multiplies the backoff cap by it. */
  readonly random?: () => number;
}

export type RetryPolicy = Required<RetryOptions>;

/** The default total retry budget of one request. */
export const DEFAULT_RETRY_BUDGET_MS = 60_000;

export function resolveRetryPolicy(opts: RetryOptions | undefined): RetryPolicy {
  return {
    maxAttempts: Math.max(1, opts?.maxAttempts ?? 5),
    budgetMs: opts?.budgetMs ?? DEFAULT_RETRY_BUDGET_MS,
    baseDelayMs: opts?.baseDelayMs ?? 250,
    maxDelayMs: opts?.maxDelayMs ?? 10_000,
    retryAfterCapMs: opts?.retryAfterCapMs ?? 30_000,
    sleep: opts?.sleep ?? defaultSleep,
    random: opts?.random ?? Math.random,
  };
}

function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Statuses that say "try again later" for a read. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 500 || status === 502 || status === 503 || status === 504;
}

/**
 * Delay before the retry that follows failed attempt `attempt` (1-based): the server's
 * `Retry-After` when it gave one (capped), else exponential backoff with full jitter.
 */
export function computeRetryDelay(attempt: number, retryAfterMs: number | undefined, policy: RetryPolicy): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(0, retryAfterMs), policy.retryAfterCapMs);
  return backoffDelay(attempt, policy);
}

/** What a full-jitter backoff needs: both the transport's retries and apply's resends use one. */
export interface BackoffPolicy {
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** Uniform in [0, 1). */
  readonly random: () => number;
}

/**
 * Exponential backoff with full jitter (uniform in [0, cap), cap = `baseDelayMs * 2^(n-1)` up to
 * `maxDelayMs`) before the retry that follows failed attempt `attempt` (1-based): clients that
 * failed together do not come back together.
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(policy.random() * cap);
}

/**
 * `Retry-After` as milliseconds from `nowMs`: delta-seconds or an HTTP date (a date already past is
 * 0); undefined if unreadable. A date names its day or month in letters: `-5` or `1.5`, which
 * `Date.parse` would take for years, are not dates.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]{3}/i.test(text)) return undefined;
  const when = Date.parse(text);
  if (Number.isNaN(when)) return undefined;
  return Math.max(0, when - nowMs);
}
