/**
 * A place among the requests in flight. `epoch` is the limit's epoch when it was taken: a throttle
 * answer to a request sent before the last cut does not cut again (one cut per round of requests,
 * as TCP halves its window once per round trip).
 */
export interface Permit {
  readonly epoch: number;
}

/** How an attempt ended, for the limit. */
export type AttemptSignal = 'success' | 'throttled' | 'other';

/**
 * The requests one service may have in flight, adapted to the server (AIMD): halved on a throttle
 * answer (429, 503), grown back by one after each full round of successes, from 1 up to `max`.
 * Every request of the service takes a permit (reads, writes, token calls), so reads and apply's
 * writes share one budget, and callers may start more work than the limit: the surplus queues here.
 *
 * Invariants: 1 <= limit <= max; inFlight exceeds limit only right after a cut (those requests
 * finish; no new one starts until inFlight < limit); waiters are served in arrival order.
 */
export class AdaptiveLimit {
  readonly max: number;
  #limit: number;
  #inFlight = 0;
  #epoch = 0;
  /** Successes since the limit last changed; a round is `limit` of them. */
  #successes = 0;
  readonly #waiters: (() => void)[] = [];
  readonly #onChange: (limit: number, why: string) => void;

  constructor(max: number, onChange: (limit: number, why: string) => void = () => {}) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`in-flight limit must be a positive integer, not ${max}`);
    this.max = max;
    this.#limit = max;
    this.#onChange = onChange;
  }

  get limit(): number {
    return this.#limit;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  async acquire(): Promise<Permit> {
    if (this.#inFlight < this.#limit && this.#waiters.length === 0) this.#inFlight++;
    // The releaser counts the waiter in before waking it, so two releases in one tick cannot both admit past the limit.
    else await new Promise<void>((resolve) => this.#waiters.push(resolve));
    return { epoch: this.#epoch };
  }

  /** Gives the permit back, after `observe`. */
  release(): void {
    this.#inFlight--;
    while (this.#waiters.length > 0 && this.#inFlight < this.#limit) {
      this.#inFlight++;
      this.#waiters.shift()!();
    }
  }

  /** Adapts the limit to how the attempt sent under `permit` ended; `what` names the answer (`429`). */
  observe(permit: Permit, signal: AttemptSignal, what = ''): void {
    switch (signal) {
      case 'success':
        if (++this.#successes >= this.#limit && this.#limit < this.max) {
          this.#limit++;
          this.#successes = 0;
          this.#epoch++;
          this.#onChange(this.#limit, 'answers again');
        }
        break;
      case 'throttled':
        if (permit.epoch === this.#epoch) {
          this.#limit = Math.max(1, Math.floor(this.#limit / 2));
          this.#successes = 0;
          this.#epoch++;
          this.#onChange(this.#limit, `throttled${what === '' ? '' : ` (${what})`}`);
        }
        break;
      case 'other':
        break;
      default: {
        const never: never = signal;
        throw new Error(`unknown attempt signal ${String(never)}`);
      }
    }
  }
}
