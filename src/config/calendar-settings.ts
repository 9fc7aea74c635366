import { createDiagnostic } from '../diagnostics.js';
import type { Diagnostic } from '../diagnostics.js';
import { isRecord } from '../is-record.js';
import type { SourceMap } from '../manifest/types.js';
import { touchesRejected } from '../manifest/schema-errors.js';
import { readMinuteOfDay } from '../schedule/next-runs.js';
import { DEFAULT_DUE_MARGIN_MINUTES } from '../schedule/model.js';
import type { ChangeWindowSettings, FreezePeriod, ScheduleSettings } from '../schedule/model.js';
import { canonicalDayName } from '../vocabulary.js';
import type { DayOfWeek } from '../vocabulary.js';

/** `changeWindows:` and `schedule:` of one environment as written (after the schema). */
export interface RawCalendarSettings {
  changeWindows?: {
    allow?: { days?: string[]; from: string; to: string }[];
    freeze?: ({ from: string; to: string; reason?: string } | { dateList: string; reason?: string })[];
  };
  schedule?: { dueMargin?: number | string };
}

/**
 * What the schema cannot say about `changeWindows`: a window that opens and closes at the same
 * minute, a freeze that ends before it starts, a date that is not of the calendar. Each at its place.
 */
export function checkCalendarValues(name: string, env: Record<string, unknown>, sourceMap: SourceMap, rejected: readonly (readonly string[])[]): Diagnostic[] {
  const problems: Diagnostic[] = [];
  const windows = isRecord(env.changeWindows) ? env.changeWindows : {};
  const at = (path: (string | number)[], text: string) => {
    const full = ['environments', name, 'changeWindows', ...path];
    if (touchesRejected(rejected, full.map(String))) return;
    problems.push(createDiagnostic('error', 'MF505', sourceMap.locate(full), `${full.join('.')}: ${text}`));
  };
  (Array.isArray(windows.allow) ? windows.allow : []).forEach((w: unknown, i) => {
    if (isRecord(w) && typeof w.from === 'string' && w.from === w.to)
      at(['allow', i], 'the window opens and closes at the same minute (write 00:00 to 24:00 for a whole day)');
  });
  (Array.isArray(windows.freeze) ? windows.freeze : []).forEach((f: unknown, i) => {
    if (!isRecord(f) || typeof f.from !== 'string' || typeof f.to !== 'string') return;
    for (const key of ['from', 'to'] as const) if (!isCalendarDate(f[key] as string)) at(['freeze', i, key], `${String(f[key])} is not a date of the calendar`);
    if (f.from > f.to) at(['freeze', i], `the freeze ends (${f.to}) before it starts (${f.from})`);
  });
  return problems;
}

/** The settings of a file that passed the schema and checkCalendarValues; `where` as `FILE:LINE:COL`. */
export function buildCalendarSettings(
  name: string,
  env: RawCalendarSettings,
  sourceMap: SourceMap,
  shown: string,
): { changeWindows?: ChangeWindowSettings; schedule?: ScheduleSettings } {
  const where = (path: (string | number)[]) => {
    const pos = sourceMap.locate(['environments', name, ...path]);
    return `${shown}:${pos.line}:${pos.col}`;
  };
  const out: { changeWindows?: ChangeWindowSettings; schedule?: ScheduleSettings } = {};
  const cw = env.changeWindows;
  if (cw !== undefined) {
    out.changeWindows = {
      allow: (cw.allow ?? []).map((w, i) => ({
        days: (w.days ?? []).map((d) => canonicalDayName(d)).filter((d): d is DayOfWeek => d !== undefined),
        from: readMinuteOfDay(w.from) ?? 0,
        to: readMinuteOfDay(w.to) ?? 1440,
        where: where(['changeWindows', 'allow', i]),
      })),
      freeze: (cw.freeze ?? []).map((f, i): FreezePeriod => {
        const at = where(['changeWindows', 'freeze', i]);
        const reason = f.reason !== undefined ? { reason: f.reason } : {};
        return 'dateList' in f ? { dateList: f.dateList, ...reason, where: at } : { from: f.from, to: f.to, ...reason, where: at };
      }),
    };
  }
  if (env.schedule !== undefined) out.schedule = { dueMarginMinutes: readDuration(env.schedule.dueMargin) ?? DEFAULT_DUE_MARGIN_MINUTES };
  return out;
}

/** `15`, `15m`, `2h` as minutes. */
export function readDuration(value: number | string | undefined): number | undefined {
  if (typeof value === 'number') return value;
  const m = /^(\d+)([mh])$/.exec(value ?? '');
  return m ? Number(m[1]) * (m[2] === 'h' ? 60 : 1) : undefined;
}

function isCalendarDate(text: string): boolean {
  const time = Date.parse(`${text}T00:00:00Z`);
  return Number.isFinite(time) && new Date(time).toISOString().slice(0, 10) === text;
}
