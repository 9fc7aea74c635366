import type { Schedule } from '../kinds/task/model.js';
import { WEEK_DAYS } from '../vocabulary.js';
import { dateText, instantOf, localTimeOf } from './server-zone.js';
import type { ServerZone } from './server-zone.js';

/*
 * How the automation scheduler reads a schedule. The reference (A §2.4a) gives the fields, not
 * their meaning; these are mftops's assumptions (docs/server-variants.md, "Schedules"), each in
 * one place here:
 * - an interval whose EndTime is absent or equals StartTime is one run at StartTime; an interval
 *   StartTime..EndTime is a window in which the scheduler starts the task at StartTime and
 *   re-checks until EndTime (INTERVAL_RULE): the next run is the next StartTime, and the task is
 *   "due" while a window is open;
 * - an interval whose EndTime is before its StartTime runs past midnight;
 * - `Multi` 2 (the post-midnight part of an overnight schedule) names in `Days` the days the
 *   overnight schedule began (POST_MIDNIGHT_DAY_SHIFT);
 * - a schedule's date lists name the dates it does not run on (DATE_LIST_RULE), checked on the
 *   day the schedule began.
 */

/** `except`: not on the listed dates (holiday lists); `only`: only on them. */
export type DateListRule = 'except' | 'only';
export const DATE_LIST_RULE: DateListRule = 'except';

/** Days the post-midnight part (`Multi` 2) runs after the day its `Days` name. */
export const POST_MIDNIGHT_DAY_SHIFT = 1;

/**
 * Whether an interval is a window the scheduler keeps re-checking (true) or a single start. The
 * one place to change if the server turns out to read `Interval` otherwise.
 */
export function isWindowInterval(startMinute: number, endMinute: number | undefined): boolean {
  return endMinute !== undefined && endMinute !== startMinute;
}

/** One run of a task: when the scheduler starts it, and until when its window stays open. */
export interface ScheduledRun {
  /** Epoch ms of the start. */
  readonly start: number;
  /** Epoch ms the window closes; equals `start` for a single run. */
  readonly end: number;
  /** Index of the schedule in the task's `Schedules.Schedule`. */
  readonly schedule: number;
}

export interface NextRunOptions {
  /** Runs that start at or after this instant. */
  readonly from: Date;
  /** At most this many runs (default 3). */
  readonly count?: number;
  /** Only runs that start before this instant. */
  readonly until?: Date;
  readonly zone: ServerZone;
  /** Date lists by lower-case name: their dates, `yyyy-mm-dd`. A list not here has no dates. */
  readonly dateLists?: ReadonlyMap<string, ReadonlySet<string>>;
  readonly dateListRule?: DateListRule;
}

/** Days looked at, at most: a schedule that never runs (a date list that covers its days) ends the search. */
const HORIZON_DAYS = 400;

/** The next runs of a task's schedules, in time order, one per start instant. */
export function listNextRuns(schedules: readonly Schedule[], options: NextRunOptions): ScheduledRun[] {
  const count = options.count ?? 3;
  const from = options.from.getTime();
  const until = options.until?.getTime() ?? Number.POSITIVE_INFINITY;
  const out: ScheduledRun[] = [];
  if (count <= 0 || schedules.length === 0) return out;
  const first = localTimeOf(from, options.zone);
  // A day earlier: an overnight part of yesterday's schedule may start after `from`.
  for (let d = -1; d <= HORIZON_DAYS; d++) {
    const runs = runsOnDay(schedules, first, d, options).filter((r) => r.start >= from && r.start < until);
    for (const r of runs) if (!out.some((o) => o.start === r.start)) out.push(r);
    out.sort((a, b) => a.start - b.start);
    // Every run of later days starts after this day's: done once enough are found.
    if (out.length >= count && d >= 1) break;
    if (dayStart(first, d + 1, options.zone) >= until) break;
  }
  return out.slice(0, count);
}

/**
 * The run that makes a change to the task risky now: a window open at `now`, else the first start
 * within `marginMinutes` after `now`. Undefined when none.
 */
export function findDueRun(
  schedules: readonly Schedule[],
  options: Omit<NextRunOptions, 'from' | 'count' | 'until'> & { readonly now: Date; readonly marginMinutes: number },
): ScheduledRun | undefined {
  const now = options.now.getTime();
  const first = localTimeOf(now, options.zone);
  const runs: ScheduledRun[] = [];
  for (let d = -2; d <= 1 + Math.ceil(options.marginMinutes / 1440); d++) runs.push(...runsOnDay(schedules, first, d, options));
  runs.sort((a, b) => a.start - b.start);
  const open = runs.find((r) => r.start <= now && r.end > now);
  return open ?? runs.find((r) => r.start >= now && r.start <= now + options.marginMinutes * 60_000);
}

/** Every run of the schedules whose day (the local date `offset` days after `base`) it starts on. */
function runsOnDay(
  schedules: readonly Schedule[],
  base: { year: number; month: number; day: number },
  offset: number,
  options: Pick<NextRunOptions, 'zone' | 'dateLists' | 'dateListRule'>,
): ScheduledRun[] {
  const out: ScheduledRun[] = [];
  const day = addDays(base, offset);
  schedules.forEach((schedule, index) => {
    const shift = schedule.Multi === 2 ? POST_MIDNIGHT_DAY_SHIFT : 0;
    if (!runsOnScheduleDay(schedule, addDays(day, -shift), options)) return;
    for (const interval of schedule.Frequency.Interval) {
      const startMinute = readMinuteOfDay(interval.StartTime);
      if (startMinute === undefined) continue;
      const endMinute = interval.EndTime === '' ? undefined : readMinuteOfDay(interval.EndTime);
      const start = instantOf(day.year, day.month, day.day, startMinute, options.zone);
      let end = start;
      if (isWindowInterval(startMinute, endMinute)) {
        const endDay = endMinute! < startMinute ? addDays(day, 1) : day;
        end = instantOf(endDay.year, endDay.month, endDay.day, endMinute!, options.zone);
      }
      out.push({ start, end, schedule: index });
    }
  });
  return out;
}

/** The schedule's days and date lists allow the day it begins on. */
function runsOnScheduleDay(
  schedule: Schedule,
  day: { year: number; month: number; day: number },
  options: Pick<NextRunOptions, 'dateLists' | 'dateListRule'>,
): boolean {
  const days = schedule.Days?.DayOfWeek ?? [];
  const weekday = WEEK_DAYS[(new Date(Date.UTC(day.year, day.month - 1, day.day)).getUTCDay() + 6) % 7]!;
  if (days.length > 0 && !days.includes(weekday)) return false;
  const lists = schedule.DateListRef ?? [];
  if (lists.length === 0) return true;
  const date = dateText(day);
  const listed = lists.some((name) => options.dateLists?.get(name.toLowerCase())?.has(date) === true);
  const rule = options.dateListRule ?? DATE_LIST_RULE;
  switch (rule) {
    case 'except':
      return !listed;
    case 'only':
      return listed;
    default: {
      const never: never = rule;
      throw new Error(`unknown date list rule ${String(never)}`);
    }
  }
}

/** `HH:mm` (or `H:mm`, up to `24:00`) as minutes after midnight; undefined if unreadable. */
export function readMinuteOfDay(text: string | undefined): number | undefined {
  const m = /^(\d{1,2}):(\d{2})$/.exec(text?.trim() ?? '');
  if (!m) return undefined;
  const minutes = Number(m[1]) * 60 + Number(m[2]);
  return Number(m[2]) < 60 && minutes <= 1440 ? minutes : undefined;
}

function addDays(d: { year: number; month: number; day: number }, n: number): { year: number; month: number; day: number } {
  const t = new Date(Date.UTC(d.year, d.month - 1, d.day + n));
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
}

function dayStart(base: { year: number; month: number; day: number }, offset: number, zone: ServerZone): number {
  const d = addDays(base, offset);
  return instantOf(d.year, d.month, d.day, 0, zone);
}
