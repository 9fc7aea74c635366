import type { DayOfWeek, Interval, Schedule } from '../manifest/types.js';
import { SHORT_WEEK_DAYS, WEEK_DAYS } from '../vocabulary.js';
import { isRecord } from '../is-record.js';

/** A task's `Schedules` value as the manifest model has it. */
export interface Schedules {
  readonly Schedule: readonly Schedule[];
}

const WEEK: readonly DayOfWeek[] = WEEK_DAYS;

const SHORT = Object.fromEntries(WEEK_DAYS.map((d, i) => [d, SHORT_WEEK_DAYS[i]!])) as Readonly<Record<DayOfWeek, string>>;

/** What an absent or empty `Schedules` means to a reviewer. */
export const NOT_SCHEDULED = 'Not scheduled';

/**
 * One English phrase for a task's schedules, e.g. `Weekdays (Mon–Fri) at 02:00` or
 * `Every day, repeatedly from 08:00 to 18:00; Sat at 09:00`. Several schedules are joined by `; `.
 */
export function describeSchedules(schedules: Schedules | undefined): string {
  if (schedules === undefined || schedules.Schedule.length === 0) return NOT_SCHEDULED;
  return schedules.Schedule.map(describeSchedule).join('; ');
}

/**
 * One schedule in words. The model has no repeat period inside a window (an interval is only
 * `StartTime`/`EndTime`), so a window is "repeatedly from A to B" and a point is "at A".
 */
export function describeSchedule(schedule: Schedule): string {
  const days = describeDays(schedule.Days?.DayOfWeek ?? []);
  const { points, windows } = describeIntervals(schedule.Frequency.Interval);
  let phrase: string;
  if (points !== undefined && windows !== undefined) phrase = `${days} ${points}, and ${windows}`;
  else if (points !== undefined) phrase = `${days} ${points}`;
  else if (windows !== undefined) phrase = `${days}, ${windows}`;
  else phrase = `${days}, no times set`;

  const lists = schedule.DateListRef ?? [];
  if (lists.length > 0) phrase += `, with date ${lists.length === 1 ? 'list' : 'lists'} ${joinWords(lists)}`;
  if (schedule.OnlyUntilFirstSuccess === 1) phrase += ', until the first success';
  if (schedule.FailIfNoSuccessInSched === 1) phrase += ', failing if no run succeeds';
  if (schedule.RunEvenIfNotif === 1) phrase += ', even when its sources use notifications';
  switch (schedule.Multi) {
    case 1:
      phrase += ' (the part before midnight of an overnight schedule)';
      break;
    case 2:
      phrase += ' (the part after midnight of an overnight schedule)';
      break;
    case 0:
    case undefined:
      break;
    default: {
      const never: never = schedule.Multi;
      phrase += ` (Multi ${String(never)})`;
    }
  }
  return phrase;
}

/** `Every day`, `Weekdays (Mon–Fri)`, `Weekends (Sat–Sun)`, `Every Monday`, `Mon–Thu`, `Mon, Wed and Fri`. */
export function describeDays(days: readonly string[]): string {
  const known = WEEK.filter((d) => days.includes(d));
  const unknown = [...new Set(days.filter((d) => !(WEEK as readonly string[]).includes(d)))];
  if (unknown.length > 0) return joinWords([...known.map((d) => SHORT[d]), ...unknown]);
  if (known.length === 0 || known.length === 7) return 'Every day';
  const key = known.map((d) => SHORT[d]).join(',');
  if (key === 'Mon,Tue,Wed,Thu,Fri') return 'Weekdays (Mon–Fri)';
  if (key === 'Sat,Sun') return 'Weekends (Sat–Sun)';
  const only = known.length === 1 ? known[0] : undefined;
  if (only !== undefined) return `Every ${only}`;
  const first = WEEK.indexOf(known[0]!);
  const contiguous = known.every((d, i) => WEEK.indexOf(d) === first + i);
  if (contiguous && known.length >= 3) return `${SHORT[known[0]!]}–${SHORT[known[known.length - 1]!]}`;
  return joinWords(known.map((d) => SHORT[d]));
}

function describeIntervals(intervals: readonly Interval[]): { points?: string; windows?: string } {
  const points: string[] = [];
  const windows: string[] = [];
  for (const i of intervals) {
    if (i.StartTime === i.EndTime) points.push(i.StartTime);
    else windows.push(i.StartTime === '00:00' && i.EndTime === '23:59' ? 'around the clock' : `from ${i.StartTime} to ${i.EndTime}`);
  }
  const out: { points?: string; windows?: string } = {};
  if (points.length > 0) out.points = `at ${joinWords(points)}`;
  if (windows.length > 0)
    out.windows = windows[0] === 'around the clock' && windows.length === 1 ? 'around the clock (00:00–23:59)' : `repeatedly ${joinWords(windows)}`;
  return out;
}

/** `a`, `a and b`, `a, b and c`. */
function joinWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]!}`;
}

/** Date list names by id (a task payload's `refNames.dateList`). */
export type DateListNames = Readonly<Record<string, string>>;

/**
 * Read a plan value (JSON as the user writes it, or an API task body) as `Schedules`;
 * `undefined` when it is not shaped like one. Date list references given as API objects
 * (`{DateListID}`) are shown by their name (their own, or `names`' for their id) when known,
 * else as `id N`.
 */
export function readSchedules(value: unknown, names: DateListNames = {}): Schedules | undefined {
  if (!isRecord(value) || !Array.isArray(value.Schedule)) return undefined;
  const out: Schedule[] = [];
  for (const item of value.Schedule) {
    const s = readSchedule(item, names);
    if (s === undefined) return undefined;
    out.push(s);
  }
  return { Schedule: out };
}

/** One `Schedule` item of a plan value, or `undefined` when it is not shaped like one. */
export function readSchedule(value: unknown, names: DateListNames = {}): Schedule | undefined {
  if (!isRecord(value) || !isRecord(value.Frequency) || !Array.isArray(value.Frequency.Interval)) return undefined;
  const intervals: Interval[] = [];
  for (const i of value.Frequency.Interval) {
    if (!isRecord(i) || typeof i.StartTime !== 'string' || typeof i.EndTime !== 'string') return undefined;
    intervals.push({ StartTime: i.StartTime, EndTime: i.EndTime });
  }
  const days =
    isRecord(value.Days) && Array.isArray(value.Days.DayOfWeek) ? value.Days.DayOfWeek.filter((d): d is DayOfWeek => typeof d === 'string') : undefined;
  const lists = Array.isArray(value.DateListRef) ? value.DateListRef.map((ref) => dateListName(ref, names)) : undefined;
  const flag = (v: unknown): 0 | 1 | undefined => (v === 1 || v === true ? 1 : v === 0 || v === false ? 0 : undefined);
  const multi = value.Multi === 1 || value.Multi === 2 || value.Multi === 0 ? value.Multi : undefined;
  const schedule: { -readonly [K in keyof Schedule]: Schedule[K] } = { Frequency: { Interval: intervals } };
  if (days !== undefined) schedule.Days = { DayOfWeek: days };
  if (lists !== undefined) schedule.DateListRef = lists;
  const f = flag(value.FailIfNoSuccessInSched);
  if (f !== undefined) schedule.FailIfNoSuccessInSched = f;
  const o = flag(value.OnlyUntilFirstSuccess);
  if (o !== undefined) schedule.OnlyUntilFirstSuccess = o;
  const r = flag(value.RunEvenIfNotif);
  if (r !== undefined) schedule.RunEvenIfNotif = r;
  if (multi !== undefined) schedule.Multi = multi;
  return schedule;
}

function dateListName(ref: unknown, names: DateListNames): string {
  if (typeof ref === 'string') return ref;
  if (isRecord(ref)) {
    for (const k of ['Name', 'DateListName']) if (typeof ref[k] === 'string') return ref[k];
    for (const k of ['DateListID', 'ID']) {
      const id = ref[k];
      if (typeof id !== 'string' && typeof id !== 'number') continue;
      return Object.hasOwn(names, String(id)) ? names[String(id)]! : `id ${String(id)}`;
    }
  }
  return JSON.stringify(ref) ?? 'unknown';
}
