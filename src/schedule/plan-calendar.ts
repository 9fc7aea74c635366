import type { Schedule } from '../kinds/task/model.js';
import { isRecord } from '../is-record.js';
import type { Change } from '../resources/model.js';
import { formatAddress } from '../kinds/address.js';
import { canonicalDayName } from '../vocabulary.js';
import type { DayOfWeek } from '../vocabulary.js';
import { describeWindowVerdict, judgeChangeWindow } from './change-window.js';
import type { ChangeWindowSettings } from './model.js';
import { findDueRun, listNextRuns } from './next-runs.js';
import { withDefined } from '../with-defined.js';
import type { ServerZone } from './server-zone.js';

/**
 * What the plan says about the servers' clocks (issue 28): the next runs of the tasks it changes
 * or deletes, and whether apply would be refused now by the change windows. Plain data in the
 * plan, the plan file (optional: older files load) and the JSON view. Absent when the plan
 * changes no scheduled task and the environment has no `changeWindows`.
 */
export interface PlanCalendar {
  /** The instant the calendar was judged at (the plan's clock, `MFTOPS_NOW` in tests), ISO. */
  readonly at: string;
  /** The automation server's zone (`label` as it named it), which times are shown in. */
  readonly zone: ServerZone;
  /** Runs starting within this many minutes of the plan's time are `due`. */
  readonly dueMarginMinutes: number;
  /** One per updated, replaced or deleted task whose live schedules run, in plan order. */
  readonly tasks: readonly TaskRuns[];
  /** The change windows at the plan's time; absent when the environment sets none. */
  readonly changeWindow?: PlanWindowCheck;
  /** `apply --pause-scheduler` only: the runs a stopped scheduler may miss (`PausedRuns`). */
  readonly paused?: PausedRuns;
}

/**
 * The runs of every task (not only the changed ones: a stopped scheduler starts none) due from
 * the plan's time until `minutes` later, the expected apply time (the due margin: an estimate).
 * The server makes up at most one missed run per task, so these may be skipped.
 */
export interface PausedRuns {
  readonly minutes: number;
  /** In time order; `start` an ISO instant. */
  readonly runs: readonly { readonly address: string; readonly start: string }[];
}

/**
 * The next runs of a task the plan writes. They come from the live schedules, for an update too:
 * that is what runs if the apply comes late, and what a run that starts during the apply uses.
 */
export interface TaskRuns {
  readonly address: string;
  readonly action: 'update' | 'replace' | 'delete';
  /** ISO instants (UTC) of the next starts, at most 3. */
  readonly nextRuns: readonly string[];
  /** A run open at the plan's time (`open`), or starting within the margin: changing the task now may hit it. */
  readonly due?: { readonly start: string; readonly open: boolean };
}

/** Would `apply` be refused now. */
export interface PlanWindowCheck {
  readonly state: 'open' | 'closed' | 'frozen';
  /** When not open: the refusal's sentence (why, and the next window in the server's zone and UTC). */
  readonly text?: string;
  /** ISO instant of the next open window, when not open. */
  readonly next?: string;
}

export interface PlanCalendarInput {
  readonly changes: readonly Change[];
  /** Live tasks by server id: the schedules as the server holds them (canonical wire form). */
  readonly liveTasks: ReadonlyMap<string, unknown>;
  /** Date list names by id, for a live `DateListRef` `{DateListID}`. */
  readonly dateListNames: ReadonlyMap<string, string>;
  /** Date lists by lower-case name: their dates. */
  readonly dateLists: ReadonlyMap<string, ReadonlySet<string>>;
  readonly zone: ServerZone;
  readonly now: Date;
  readonly dueMarginMinutes: number;
  readonly changeWindows?: ChangeWindowSettings;
  /** Freeze date lists named in `changeWindows` that the server does not have. */
  readonly missingDateLists?: readonly string[];
  /** Freeze date lists whose dates cannot be read (`describeUnreadableDateLists`). */
  readonly unreadableDateLists?: readonly string[];
  /** `apply --pause-scheduler`: list the runs of every live task due within the due margin. */
  readonly pauseScheduler?: boolean;
}

/** The calendar of a plan; undefined when there is nothing to say. */
export function assemblePlanCalendar(input: PlanCalendarInput): PlanCalendar | undefined {
  const tasks: TaskRuns[] = [];
  for (const change of input.changes) {
    if (change.kind !== 'Task' || change.liveId === undefined) continue;
    const action = change.action;
    if (action !== 'update' && action !== 'replace' && action !== 'delete') continue;
    const schedules = liveSchedules(input.liveTasks.get(change.liveId), input.dateListNames);
    if (schedules.length === 0) continue;
    const options = { zone: input.zone, dateLists: input.dateLists };
    const nextRuns = listNextRuns(schedules, { ...options, from: input.now, count: 3 }).map((r) => new Date(r.start).toISOString());
    const due = findDueRun(schedules, { ...options, now: input.now, marginMinutes: input.dueMarginMinutes });
    tasks.push({
      address: change.address,
      action,
      nextRuns,
      ...(due !== undefined ? { due: { start: new Date(due.start).toISOString(), open: due.start < input.now.getTime() } } : {}),
    });
  }
  const changeWindow = input.changeWindows !== undefined ? checkWindow(input) : undefined;
  const paused = input.pauseScheduler === true ? listPausedRuns(input) : undefined;
  if (tasks.length === 0 && changeWindow === undefined && paused === undefined) return undefined;
  return {
    at: input.now.toISOString(),
    zone: input.zone,
    dueMarginMinutes: input.dueMarginMinutes,
    tasks,
    ...withDefined({ changeWindow, paused }),
  };
}

function listPausedRuns(input: PlanCalendarInput): PausedRuns {
  const until = new Date(input.now.getTime() + input.dueMarginMinutes * 60_000);
  const runs: { address: string; start: number }[] = [];
  for (const task of input.liveTasks.values()) {
    if (!isRecord(task) || typeof task.Name !== 'string') continue;
    const schedules = liveSchedules(task, input.dateListNames);
    for (const run of listNextRuns(schedules, { zone: input.zone, dateLists: input.dateLists, from: input.now, until, count: 100 }))
      runs.push({ address: formatAddress('Task', task.Name), start: run.start });
  }
  runs.sort((a, b) => a.start - b.start || (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  return { minutes: input.dueMarginMinutes, runs: runs.map((r) => ({ address: r.address, start: new Date(r.start).toISOString() })) };
}

function checkWindow(input: PlanCalendarInput): PlanWindowCheck {
  return judgeWindowsNow(
    input.changeWindows!,
    input.now,
    { zone: input.zone, dateLists: input.dateLists },
    input.missingDateLists ?? [],
    input.unreadableDateLists ?? [],
  );
}

/**
 * The change windows at `now`, for plan and apply alike: a freeze by a missing date list, or a
 * zone the server did not give (`unknown`, taken as UTC), is not guessed open; the note of an
 * approximate zone ends the text.
 */
export function judgeWindowsNow(
  windows: ChangeWindowSettings,
  now: Date,
  context: { readonly zone: ServerZone; readonly dateLists: ReadonlyMap<string, ReadonlySet<string>> },
  missing: readonly string[],
  unreadable: readonly string[] = [],
): PlanWindowCheck {
  const lists = [
    ...(missing.length > 0 ? [describeMissingDateLists(missing)] : []),
    ...(unreadable.length > 0 ? [describeUnreadableDateLists(unreadable)] : []),
  ];
  if (lists.length > 0) return { state: 'frozen', text: lists.join('; ') };
  if (context.zone.source === 'unknown') return { state: 'closed', text: `the change windows cannot be judged: ${context.zone.note ?? 'no time zone'}` };
  const verdict = judgeChangeWindow(windows, now, context);
  if (verdict.state === 'open') return { state: 'open' };
  const note = context.zone.note !== undefined ? `; ${context.zone.note}` : '';
  return {
    state: verdict.state,
    text: `${describeWindowVerdict(verdict, now, context.zone)}${note}`,
    ...withDefined({ next: verdict.next !== undefined ? new Date(verdict.next).toISOString() : undefined }),
  };
}

/** A freeze by a date list whose dates cannot be read (none readable, or one that is not) is not guessed open. */
export function describeUnreadableDateLists(names: readonly string[]): string {
  return `changeWindows.freeze names the date ${names.length === 1 ? 'list' : 'lists'} ${names.map((n) => JSON.stringify(n)).join(', ')}, whose dates cannot be read (none readable, or one in a form other than yyyy-mm-dd, an ISO instant or M/d/yyyy): the freeze cannot be checked`;
}

/** A freeze by a date list the server does not have is not guessed open. */
export function describeMissingDateLists(names: readonly string[]): string {
  return `changeWindows.freeze names the date ${names.length === 1 ? 'list' : 'lists'} ${names.map((n) => JSON.stringify(n)).join(', ')}, which the automation server does not have: the freeze cannot be checked`;
}

/** A live task's schedules in the manifest model (day names, date lists by name); none when it is inactive. */
export function liveSchedules(task: unknown, dateListNames: ReadonlyMap<string, string>): Schedule[] {
  if (!isRecord(task) || task.Active === 0 || task.Active === false || task.Active === '0') return [];
  const list = isRecord(task.Schedules) ? task.Schedules.Schedule : undefined;
  const items = Array.isArray(list) ? list : isRecord(list) ? [list] : [];
  return items.filter(isRecord).map((s): Schedule => {
    const freq = isRecord(s.Frequency) ? s.Frequency.Interval : undefined;
    const intervals = (Array.isArray(freq) ? freq : isRecord(freq) ? [freq] : []).filter(isRecord).map((i) => ({
      StartTime: typeof i.StartTime === 'string' ? i.StartTime : '',
      EndTime: typeof i.EndTime === 'string' ? i.EndTime : '',
    }));
    const dayList = isRecord(s.Days) ? s.Days.DayOfWeek : undefined;
    const days = (Array.isArray(dayList) ? dayList : typeof dayList === 'string' ? [dayList] : [])
      .map((d) => (typeof d === 'string' ? canonicalDayName(d) : undefined))
      .filter((d): d is DayOfWeek => d !== undefined);
    const refs = Array.isArray(s.DateListRef) ? s.DateListRef : s.DateListRef !== undefined ? [s.DateListRef] : [];
    const lists = refs.map((r) => {
      const id = isRecord(r) ? String(r.DateListID ?? r.ID ?? '') : String(r);
      return dateListNames.get(id) ?? id;
    });
    const multi = Number(s.Multi);
    return {
      ...(days.length > 0 ? { Days: { DayOfWeek: days } } : {}),
      ...(lists.length > 0 ? { DateListRef: lists } : {}),
      Frequency: { Interval: intervals },
      ...(multi === 1 || multi === 2 ? { Multi: multi } : {}),
    };
  });
}

/**
 * Date lists as the server answers them (`Entries` of `{Date}` and `{C}`), by lower-case name;
 * the one reader of their dates, for next runs and freezes alike (`readListDate`). `withoutEntries`:
 * the ids of the lists the answer gave no entries for (maybe a summary: read the list by id); `unreadable`: the
 * lists with an entry whose date cannot be read.
 */
export function indexDateLists(lists: readonly unknown[]): {
  byName: Map<string, Set<string>>;
  namesById: Map<string, string>;
  withoutEntries: Map<string, string>;
  unreadable: Set<string>;
} {
  const byName = new Map<string, Set<string>>();
  const namesById = new Map<string, string>();
  const withoutEntries = new Map<string, string>();
  const unreadable = new Set<string>();
  for (const list of lists) {
    if (!isRecord(list) || typeof list.Name !== 'string') continue;
    const name = list.Name.toLowerCase();
    if (list.ID !== undefined) namesById.set(String(list.ID), list.Name);
    const entries = Array.isArray(list.Entries) ? list.Entries : list.Entries !== undefined ? [list.Entries] : [];
    if (entries.length === 0 && list.ID !== undefined) withoutEntries.set(name, String(list.ID));
    const dates = new Set<string>();
    for (const e of entries) {
      if (isRecord(e) && e.Date === undefined && e.C !== undefined) continue;
      const date = readListDate(isRecord(e) ? e.Date : e);
      if (date !== undefined) dates.add(date);
      else unreadable.add(name);
    }
    byName.set(name, dates);
  }
  return { byName, namesById, withoutEntries, unreadable };
}

/** A date list entry's date as `yyyy-mm-dd`: from `yyyy-mm-dd`, an ISO instant (its date as written) or `M/d/yyyy`. */
export function readListDate(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/.exec(text);
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text);
  const [year, month, day] = iso !== null ? [iso[1], iso[2], iso[3]] : us !== null ? [us[3], us[1], us[2]] : [];
  if (year === undefined || month === undefined || day === undefined) return undefined;
  const d = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (d.getUTCFullYear() !== Number(year) || d.getUTCMonth() + 1 !== Number(month) || d.getUTCDate() !== Number(day)) return undefined;
  return `${year}-${month.padStart(2, '0')}-${day.padStart(2, '0')}`;
}
