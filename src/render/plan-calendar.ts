import type { PlanCalendar, TaskRuns } from '../schedule/plan-calendar.js';
import { hhmm } from '../schedule/change-window.js';
import { localTimeOf } from '../schedule/server-zone.js';
import type { ServerZone } from '../schedule/server-zone.js';
import { SHORT_WEEK_DAYS } from '../vocabulary.js';
import { escapeControl, escapeMd } from './text.js';

/**
 * The plan's calendar in words (issue 28), shared by the text and markdown plans: whether apply
 * would be refused now by the change windows, and per task the plan writes, its next run in the
 * server's zone, how far off, and the flag when it is due.
 */

/** `Apply now would be refused: outside …` or nothing when the windows are open (or not set). */
export function changeWindowSentence(calendar: PlanCalendar | undefined): string | undefined {
  const w = calendar?.changeWindow;
  if (w === undefined) return undefined;
  const note = calendar?.zone.note;
  if (w.state === 'open') return `Change windows: open now; apply would not be refused${note !== undefined ? ` (${note})` : ''}.`;
  return `Change windows: apply would be refused now: ${w.text ?? w.state}. To apply anyway: mftops apply --override-window "reason".`;
}

/** The headline of the schedules section. */
export function schedulesHeadline(calendar: PlanCalendar): string {
  const due = calendar.tasks.filter((t) => t.due !== undefined).length;
  const zone = `server time zone ${calendar.zone.label}${calendar.zone.note !== undefined ? `; ${calendar.zone.note}` : ''}`;
  return `Schedules of the tasks this plan changes (${zone})${due > 0 ? `: ${due} due within ${calendar.dueMarginMinutes} min` : ''}:`;
}

/** `Task/Nightly: next run Fri 02:00 (in 5 min) ⚠ due within 15 min; then Sat 02:00, Sun 02:00` */
export function describeTaskRuns(task: TaskRuns, calendar: PlanCalendar): string {
  const at = Date.parse(calendar.at);
  const address = escapeControl(task.address);
  const [first, ...rest] = task.nextRuns.map((r) => Date.parse(r));
  const flag =
    task.due === undefined
      ? ''
      : task.due.open
        ? ` ⚠ its run window opened ${shortTime(Date.parse(task.due.start), calendar.zone)} and is open now`
        : ` ⚠ due within ${calendar.dueMarginMinutes} min`;
  if (first === undefined) return `${address}: no run within a year${flag}`;
  const then = rest.length > 0 ? `; then ${rest.map((r) => shortTime(r, calendar.zone)).join(', ')}` : '';
  const what = task.action === 'delete' ? 'deleted' : task.action === 'replace' ? 'replaced' : 'changed';
  return `${address} (${what}): next run ${shortTime(first, calendar.zone)} (${inWords(first - at)})${flag}${then}`;
}

/** `Fri 02:00` in the server zone. */
function shortTime(ms: number, zone: ServerZone): string {
  const t = localTimeOf(ms, zone);
  return `${SHORT_WEEK_DAYS[t.weekday]} ${hhmm(t.hour * 60 + t.minute)}`;
}

/** `in 5 min`, `in 3 h 10 min`, `in 2 days`. */
function inWords(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  if (minutes < 60) return `in ${minutes} min`;
  if (minutes < 48 * 60) {
    const h = Math.floor(minutes / 60);
    const m = minutes % 60;
    return `in ${h} h${m > 0 ? ` ${m} min` : ''}`;
  }
  return `in ${Math.round(minutes / 1440)} days`;
}

/** The text plan's lines: a blank line, the headline, one line per task; then the runs a paused scheduler may miss. */
export function calendarTextLines(calendar: PlanCalendar | undefined): string[] {
  if (calendar === undefined) return [];
  const tasks = calendar.tasks.length === 0 ? [] : ['', schedulesHeadline(calendar), ...calendar.tasks.map((t) => `  ${describeTaskRuns(t, calendar)}`)];
  const paused = calendar.paused === undefined ? [] : ['', pausedHeadline(calendar), ...calendar.paused.runs.map((r) => `  ${describePausedRun(r, calendar)}`)];
  return [...tasks, ...paused];
}

/** `--pause-scheduler`: what a stopped scheduler may miss, over how long, in the server's zone. */
export function pausedHeadline(calendar: PlanCalendar): string {
  const paused = calendar.paused!;
  const count = paused.runs.length;
  const window = `the next ${paused.minutes} min (the due margin, taken as the apply's time)`;
  if (count === 0) return `--pause-scheduler: no task is due to run in ${window}.`;
  return `--pause-scheduler: ${count} ${count === 1 ? 'run falls' : 'runs fall'} in ${window} and may be missed while the scheduler is stopped (the server makes up at most one missed run per task):`;
}

/** `Task/Payroll to bank: Fri 02:00 (in 5 min)` */
export function describePausedRun(run: { readonly address: string; readonly start: string }, calendar: PlanCalendar): string {
  const start = Date.parse(run.start);
  return `${escapeControl(run.address)}: ${shortTime(start, calendar.zone)} (${inWords(start - Date.parse(calendar.at))})`;
}

/** At most this many tasks are listed in the markdown plan; the rest are counted. */
const MARKDOWN_TASKS = 20;

/** The markdown plan's blocks: the change-window call-out and the schedules list. Nothing when the plan has no calendar. */
export function calendarMarkdownBlocks(calendar: PlanCalendar | undefined): string[] {
  if (calendar === undefined) return [];
  const blocks: string[] = [];
  const w = calendar.changeWindow;
  if (w !== undefined && w.state !== 'open') blocks.push(`> [!CAUTION]\n> ${escapeMd(changeWindowSentence(calendar)!)}`);
  else if (w !== undefined) blocks.push(escapeMd(changeWindowSentence(calendar)!));
  if (calendar.tasks.length > 0) {
    const shown = calendar.tasks.slice(0, MARKDOWN_TASKS);
    const more = calendar.tasks.length - shown.length;
    blocks.push(
      [
        `**${escapeMd(schedulesHeadline(calendar))}**`,
        '',
        ...shown.map((t) => `- ${escapeMd(describeTaskRuns(t, calendar))}`),
        ...(more > 0 ? [`- and ${more} more (the JSON plan lists every one)`] : []),
      ].join('\n'),
    );
  }
  if (calendar.paused !== undefined) {
    const runs = calendar.paused.runs;
    const shown = runs.slice(0, MARKDOWN_TASKS);
    blocks.push(
      [
        `**${escapeMd(pausedHeadline(calendar))}**`,
        ...(shown.length > 0 ? [''] : []),
        ...shown.map((r) => `- ${escapeMd(describePausedRun(r, calendar))}`),
        ...(runs.length > shown.length ? [`- and ${runs.length - shown.length} more (the JSON plan lists every one)`] : []),
      ].join('\n'),
    );
  }
  return blocks;
}
