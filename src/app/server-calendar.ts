import type { EnvironmentSettings } from '../config/model.js';
import { ConfigError } from '../errors.js';
import { isRecord } from '../is-record.js';
import { withDefined } from '../with-defined.js';
import type { LiveState } from '../live/model.js';
import type { AutomationReader } from '../live/read-live-state.js';
import type { Plan } from '../plan/model.js';
import { isWriteAction } from '../plan/model.js';
import { DEFAULT_DUE_MARGIN_MINUTES } from '../schedule/model.js';
import type { ApplyWindowReport } from '../schedule/model.js';
import { assemblePlanCalendar, indexDateLists, judgeWindowsNow, liveSchedules } from '../schedule/plan-calendar.js';
import { describeInstant, openStretchEnd } from '../schedule/change-window.js';
import { readServerZone, UTC_ZONE } from '../schedule/server-zone.js';
import type { ServerZone } from '../schedule/server-zone.js';

/** The automation server's calendar: its zone and its date lists (read-only). */
interface ServerCalendar {
  readonly zone: ServerZone;
  readonly dateLists: ReadonlyMap<string, ReadonlySet<string>>;
  readonly namesById: ReadonlyMap<string, string>;
  /** Lower-case names of the lists with an entry whose date cannot be read. */
  readonly unreadable: ReadonlySet<string>;
}

/**
 * Read the zone (`/info`) and, when `needDateLists`, the date lists; what the plan's live read
 * already holds is not read again. A freeze's list (`freezeLists`) that the list answer gives
 * without entries (a summary) is read by id. No automation service: UTC and no date lists.
 */
async function readServerCalendar(
  reader: AutomationReader | undefined,
  live: LiveState | undefined,
  needDateLists: boolean,
  freezeLists: readonly string[] = [],
): Promise<ServerCalendar> {
  if (reader === undefined) return { zone: UTC_ZONE, dateLists: new Map(), namesById: new Map(), unreadable: new Set() };
  const info = live?.automation?.info ?? (await reader.info());
  const known = live?.automation?.dateLists?.items;
  const listed: readonly unknown[] = known ?? (needDateLists ? await reader.listDateLists() : []);
  const summaries = indexDateLists(listed).withoutEntries;
  const ids = new Set(freezeLists.flatMap((name) => summaries.get(name.toLowerCase()) ?? []));
  const lists = await Promise.all(
    listed.map((l) => (isRecord(l) && l.ID !== undefined && ids.has(String(l.ID)) ? reader.getDateList(String(l.ID)) : Promise.resolve(l))),
  );
  const index = indexDateLists(lists);
  return { zone: readServerZone(info), dateLists: index.byName, namesById: index.namesById, unreadable: index.unreadable };
}

/** The freeze date lists of `changeWindows` that the server does not have. */
function missingFreezeLists(env: EnvironmentSettings, calendar: ServerCalendar): string[] {
  return freezeListNames(env).filter((name) => !calendar.dateLists.has(name.toLowerCase()));
}

/** The freeze date lists of `changeWindows` the server has, whose dates cannot be read: none readable, or one that is not. */
function unreadableFreezeLists(env: EnvironmentSettings, calendar: ServerCalendar): string[] {
  return freezeListNames(env).filter((name) => {
    const dates = calendar.dateLists.get(name.toLowerCase());
    return dates !== undefined && (dates.size === 0 || calendar.unreadable.has(name.toLowerCase()));
  });
}

function freezeListNames(env: EnvironmentSettings): string[] {
  return (env.changeWindows?.freeze ?? []).flatMap((f) => ('dateList' in f ? [f.dateList] : []));
}

/**
 * The plan with its calendar (`Plan.calendar`): the next runs of the tasks it updates, replaces
 * or deletes, and the change windows at `now`. Reads nothing when the plan changes no task and
 * the environment sets no windows.
 */
export async function addPlanCalendar(
  plan: Plan,
  live: LiveState | undefined,
  input: {
    readonly reader: AutomationReader | undefined;
    readonly env: EnvironmentSettings;
    readonly now: Date;
    /** `apply --pause-scheduler`: also the runs of every task a stopped scheduler may miss (when the plan read the tasks). */
    readonly pauseScheduler?: boolean;
  },
): Promise<Plan> {
  const liveTasks = live?.automation?.tasks?.byId ?? new Map<string, unknown>();
  const written = plan.changes.filter(
    (c) => c.kind === 'Task' && (c.action === 'update' || c.action === 'replace' || c.action === 'delete') && c.liveId !== undefined,
  );
  const windows = input.env.changeWindows;
  const pauseScheduler = input.pauseScheduler === true && live?.automation?.tasks !== undefined && plan.changes.some((c) => isWriteAction(c.action));
  if (written.length === 0 && windows === undefined && !pauseScheduler) return plan;
  const scheduled = pauseScheduler ? [...liveTasks.values()] : written.map((c) => liveTasks.get(c.liveId!));
  const needDateLists =
    (windows?.freeze ?? []).some((f) => 'dateList' in f) ||
    scheduled.some((task) => liveSchedules(task, new Map()).some((s) => (s.DateListRef ?? []).length > 0));
  const calendar = await readServerCalendar(input.reader, live, needDateLists, freezeListNames(input.env));
  const assembled = assemblePlanCalendar({
    changes: written,
    liveTasks,
    dateListNames: calendar.namesById,
    dateLists: calendar.dateLists,
    zone: calendar.zone,
    now: input.now,
    dueMarginMinutes: input.env.schedule?.dueMarginMinutes ?? DEFAULT_DUE_MARGIN_MINUTES,
    pauseScheduler,
    ...(windows !== undefined
      ? { changeWindows: windows, missingDateLists: missingFreezeLists(input.env, calendar), unreadableDateLists: unreadableFreezeLists(input.env, calendar) }
      : {}),
  });
  return assembled === undefined ? plan : { ...plan, calendar: assembled };
}

/** `--override-window` with an empty reason is refused before anything is read. */
export function checkOverrideReason(override: string | undefined): void {
  if (override !== undefined && override.trim() === '')
    throw new ConfigError('--override-window needs a reason: --override-window "why this apply cannot wait"');
}

/** When the change window apply started in closes: epoch ms, and the instant in the server's zone and UTC. */
export interface WindowClose {
  readonly atMs: number;
  readonly text: string;
}

/**
 * The change-window gate of apply, before any write (and before the snapshot): undefined when the
 * environment sets no windows; else the verdict now, and the refusal's one line when apply must
 * stop (`zoneNote`: when open, why the server's zone is approximate). `--override-window
 * "reason"` turns a refusal into a recorded override; an empty reason is refused. `closes`:
 * when open, when the window ends (epoch ms on the clock of `now`, and in words), if within a day or two.
 */
export async function checkApplyWindow(
  env: EnvironmentSettings,
  reader: AutomationReader | undefined,
  now: Date,
  override: string | undefined,
): Promise<{ readonly report: ApplyWindowReport; readonly refusal?: string; readonly zoneNote?: string; readonly closes?: WindowClose } | undefined> {
  checkOverrideReason(override);
  const windows = env.changeWindows;
  if (windows === undefined) return undefined;
  const calendar = await readServerCalendar(
    reader,
    undefined,
    windows.freeze.some((f) => 'dateList' in f),
    freezeListNames(env),
  );
  const { state, text = state } = judgeWindowsNow(
    windows,
    now,
    { zone: calendar.zone, dateLists: calendar.dateLists },
    missingFreezeLists(env, calendar),
    unreadableFreezeLists(env, calendar),
  );
  if (state === 'open') {
    const end = openStretchEnd(windows, now, { zone: calendar.zone, dateLists: calendar.dateLists });
    const closes = end === undefined ? undefined : { atMs: end, text: describeInstant(end, calendar.zone) };
    return { report: { state }, ...withDefined({ zoneNote: calendar.zone.note, closes }) };
  }
  if (override !== undefined) return { report: { state, text, overrideReason: override.trim() } };
  return {
    report: { state, text },
    refusal: `${text}; to apply now anyway: --override-window "reason"`,
  };
}
