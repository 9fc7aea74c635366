import { SHORT_WEEK_DAYS, WEEK_DAYS } from '../vocabulary.js';
import type { AllowedWindow, ChangeWindowSettings, FreezePeriod } from './model.js';
import { dateText, formatOffset, instantOf, localTimeOf, offsetAt } from './server-zone.js';
import type { ServerZone } from './server-zone.js';

/**
 * Whether apply may write at an instant, by the environment's `changeWindows`:
 * - `open`: inside an allowed window (or none is set) and not frozen;
 * - `closed`: outside every allowed window; `frozen`: inside a freeze period.
 * `next` is the first instant from then on that is open (absent when none within a year).
 */
export interface WindowVerdict {
  readonly state: 'open' | 'closed' | 'frozen';
  /** The freeze that holds, when `frozen`. */
  readonly freeze?: FreezePeriod;
  /** Epoch ms of the next open instant, when not open. */
  readonly next?: number;
  /** Epoch ms the next open window closes, or a freeze starts in it (absent: it stays open, or no allowed window is set). */
  readonly nextCloses?: number;
  /** The zone it was judged closed in, when not the one given (the daylight offset of a `bias` zone). */
  readonly zone?: ServerZone;
}

export interface WindowContext {
  readonly zone: ServerZone;
  /** Date lists by lower-case name: their dates, `yyyy-mm-dd`. */
  readonly dateLists?: ReadonlyMap<string, ReadonlySet<string>>;
}

const DAY_MS = 86_400_000;
/** How far ahead the next window is looked for. */
const HORIZON_DAYS = 400;

/**
 * The verdict at `at`. A zone known only by its bias, with a daylight bias (`daylightBiasMinutes`),
 * is judged at both offsets: open only when open at both, else the verdict of an offset it is not
 * open at.
 */
export function judgeChangeWindow(settings: ChangeWindowSettings, at: Date, context: WindowContext): WindowVerdict {
  const daylight = context.zone.daylightBiasMinutes;
  const standard = judgeAtOffset(settings, at, context);
  if (daylight === undefined || context.zone.iana !== undefined) return standard;
  const zone: ServerZone = { ...context.zone, biasMinutes: context.zone.biasMinutes + daylight };
  const summer = judgeAtOffset(settings, at, { ...context, zone });
  if (summer.state === 'open') return standard;
  if (standard.state !== 'open' && (summer.next === undefined || (standard.next !== undefined && standard.next >= summer.next))) return standard;
  return { ...summer, zone };
}

function judgeAtOffset(settings: ChangeWindowSettings, at: Date, context: WindowContext): WindowVerdict {
  const t = at.getTime();
  const freeze = freezeAt(settings, t, context);
  if (freeze === undefined && inAllowedWindow(settings, t, context.zone)) return { state: 'open' };
  const next = nextOpenInstant(settings, t, context);
  const closes = next !== undefined ? freezeStartBefore(settings, next, windowEndAfter(settings, next, context.zone), context) : undefined;
  return {
    state: freeze !== undefined ? 'frozen' : 'closed',
    ...(freeze !== undefined ? { freeze } : {}),
    ...(next !== undefined ? { next } : {}),
    ...(closes !== undefined ? { nextCloses: closes } : {}),
  };
}

/**
 * Epoch ms at which the open stretch that holds `at` ends (its allowed window closes, or a freeze
 * starts), or undefined when nothing closes it within `horizonMs`. Apply waits no later than this:
 * a `--running-tasks wait` that outlasted the window would write outside it. Judged like
 * `judgeChangeWindow`: a bias zone with a daylight bias closes at the earlier of its two offsets.
 */
export function openStretchEnd(settings: ChangeWindowSettings, at: Date, context: WindowContext, horizonMs = 2 * DAY_MS): number | undefined {
  const daylight = context.zone.daylightBiasMinutes;
  const standard = stretchEndAtOffset(settings, at.getTime(), context, horizonMs);
  if (daylight === undefined || context.zone.iana !== undefined) return standard;
  const summer = stretchEndAtOffset(
    settings,
    at.getTime(),
    { ...context, zone: { ...context.zone, biasMinutes: context.zone.biasMinutes + daylight } },
    horizonMs,
  );
  if (standard === undefined) return summer;
  return summer === undefined ? standard : Math.min(standard, summer);
}

function stretchEndAtOffset(settings: ChangeWindowSettings, t: number, context: WindowContext, horizonMs: number): number | undefined {
  const windowEnd = windowEndAfter(settings, t, context.zone);
  const limit = windowEnd ?? t + horizonMs;
  const end = freezeStartBefore(settings, t, limit, context);
  return windowEnd === undefined && end === limit ? undefined : end;
}

/** The freeze that holds at `t`, if any. */
function freezeAt(settings: ChangeWindowSettings, t: number, context: WindowContext): FreezePeriod | undefined {
  const date = dateText(localTimeOf(t, context.zone));
  return settings.freeze.find((f) => ('dateList' in f ? context.dateLists?.get(f.dateList.toLowerCase())?.has(date) === true : f.from <= date && date <= f.to));
}

function inAllowedWindow(settings: ChangeWindowSettings, t: number, zone: ServerZone): boolean {
  if (settings.allow.length === 0) return true;
  return settings.allow.some((w) => windowInstances(w, t, zone).some(([start, end]) => start <= t && t < end));
}

/** The instances of a window that open on the local day of `t` and the day before. */
function windowInstances(w: AllowedWindow, t: number, zone: ServerZone): [number, number][] {
  const today = localTimeOf(t, zone);
  const out: [number, number][] = [];
  for (const offset of [-1, 0]) {
    const day = addDays(today, offset);
    if (w.days.length > 0 && !w.days.includes(weekdayOf(day))) continue;
    const start = instantOf(day.year, day.month, day.day, w.from, zone);
    const endDay = w.to <= w.from ? addDays(day, 1) : day;
    out.push([start, instantOf(endDay.year, endDay.month, endDay.day, w.to, zone)]);
  }
  return out;
}

/**
 * The first open instant after `t`: a window's opening, or the midnight that ends a freeze,
 * whichever comes first and is open.
 */
function nextOpenInstant(settings: ChangeWindowSettings, t: number, context: WindowContext): number | undefined {
  const today = localTimeOf(t, context.zone);
  const open = (x: number) => freezeAt(settings, x, context) === undefined && inAllowedWindow(settings, x, context.zone);
  for (let d = 0; d <= HORIZON_DAYS; d++) {
    const day = addDays(today, d);
    const midnight = instantOf(day.year, day.month, day.day, 0, context.zone);
    const candidates = [
      midnight,
      ...settings.allow
        .filter((w) => w.days.length === 0 || w.days.includes(weekdayOf(day)))
        .map((w) => instantOf(day.year, day.month, day.day, w.from, context.zone)),
    ]
      .filter((x) => x > t)
      .sort((a, b) => a - b);
    const found = candidates.find(open);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** When the open stretch that includes `t` ends, by the allowed windows (freezes aside). */
function windowEndAfter(settings: ChangeWindowSettings, t: number, zone: ServerZone): number | undefined {
  if (settings.allow.length === 0) return undefined;
  const ends = settings.allow.flatMap((w) =>
    windowInstances(w, t + DAY_MS, zone)
      .concat(windowInstances(w, t, zone))
      .filter(([s, e]) => s <= t && t < e)
      .map(([, e]) => e),
  );
  return ends.length > 0 ? Math.max(...ends) : undefined;
}

/** `end`, or the local midnight a freeze starts at between `t` and `end`, whichever comes first. */
function freezeStartBefore(settings: ChangeWindowSettings, t: number, end: number | undefined, context: WindowContext): number | undefined {
  if (end === undefined) return undefined;
  const today = localTimeOf(t, context.zone);
  for (let d = 1; ; d++) {
    const day = addDays(today, d);
    const midnight = instantOf(day.year, day.month, day.day, 0, context.zone);
    if (midnight >= end) return end;
    if (freezeAt(settings, midnight, context) !== undefined) return midnight;
  }
}

function weekdayOf(day: { year: number; month: number; day: number }): (typeof WEEK_DAYS)[number] {
  return WEEK_DAYS[(new Date(Date.UTC(day.year, day.month - 1, day.day)).getUTCDay() + 6) % 7]!;
}

function addDays(d: { year: number; month: number; day: number }, n: number): { year: number; month: number; day: number } {
  const x = new Date(Date.UTC(d.year, d.month - 1, d.day + n));
  return { year: x.getUTCFullYear(), month: x.getUTCMonth() + 1, day: x.getUTCDate() };
}

/** `Sat 2026-11-28 22:00 Europe/Berlin (21:00 UTC)`: an instant for a reader in the server's zone. */
export function describeInstant(ms: number, zone: ServerZone): string {
  const local = localTimeOf(ms, zone);
  const utc = new Date(ms).toISOString();
  const zoneName = zone.iana !== undefined ? zone.label : `${zone.label} (${formatOffset(offsetAt(ms, zone))})`;
  const sameAsUtc = zone.iana === 'UTC' || (zone.iana === undefined && zone.biasMinutes === 0);
  return `${SHORT_WEEK_DAYS[local.weekday]} ${dateText(local)} ${hhmm(local.hour * 60 + local.minute)} ${zoneName}${sameAsUtc ? '' : ` (${utc.slice(0, 10)} ${utc.slice(11, 16)} UTC)`}`;
}

/** `Sat, Sun 22:00–04:00` */
export function describeWindow(w: AllowedWindow): string {
  const days = w.days.length === 0 ? 'every day' : w.days.map((d) => SHORT_WEEK_DAYS[WEEK_DAYS.indexOf(d)]).join(', ');
  return `${days} ${hhmm(w.from)}–${hhmm(w.to)}`;
}

/** `year-end (2026-12-28 to 2027-01-02)`, `the date list Month End` */
export function describeFreeze(f: FreezePeriod): string {
  const what = 'dateList' in f ? `the dates of the date list ${JSON.stringify(f.dateList)}` : `${f.from} to ${f.to}`;
  return f.reason !== undefined ? `${f.reason} (${what}, ${f.where})` : `${what} (${f.where})`;
}

export function hhmm(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/**
 * The one line apply refuses with, and plan warns with: why now is not open and when it next is.
 * `environment` names it; the times are in the server's zone and UTC.
 */
export function describeWindowVerdict(verdict: WindowVerdict, now: Date, given: ServerZone): string {
  const zone = verdict.zone ?? given;
  const when = `now is ${describeInstant(now.getTime(), zone)}`;
  const why =
    verdict.state === 'frozen' && verdict.freeze !== undefined ? `inside the freeze ${describeFreeze(verdict.freeze)}` : 'outside the allowed change windows';
  const next =
    verdict.next !== undefined
      ? `the next window opens ${describeInstant(verdict.next, zone)}${verdict.nextCloses !== undefined ? ` and closes ${describeInstant(verdict.nextCloses, zone)}` : ''}`
      : 'no window opens within a year';
  return `${why}, ${when}; ${next}`;
}
