import type { DayOfWeek } from '../vocabulary.js';

/**
 * `changeWindows:` of an environment in mftops.yaml (issue 28): when `apply` may write. Times
 * and dates are in the automation server's zone (`/info`). An apply outside them is refused
 * before any write unless `--override-window "reason"` is given.
 */
export interface ChangeWindowSettings {
  /** `allow`: the windows apply may write in; empty: any time that is not frozen. */
  readonly allow: readonly AllowedWindow[];
  /** `freeze`: periods apply may not write in, even inside an allowed window. */
  readonly freeze: readonly FreezePeriod[];
}

/** One allowed window: on these days, from `from` to `to` (a `to` before `from` ends the next day). */
export interface AllowedWindow {
  /** The days the window opens on; empty: every day. */
  readonly days: readonly DayOfWeek[];
  /** Minutes after midnight the window opens. */
  readonly from: number;
  /** Minutes after midnight it closes (1440 = midnight at the end of the day). */
  readonly to: number;
  /** `FILE:LINE:COL` in mftops.yaml. */
  readonly where: string;
}

/**
 * One freeze: whole days, `from` to `to` inclusive (`yyyy-mm-dd`), or the dates of an automation
 * date list read at apply time (a list that does not exist refuses the apply).
 */
export type FreezePeriod =
  | { readonly from: string; readonly to: string; readonly reason?: string; readonly where: string }
  | { readonly dateList: string; readonly reason?: string; readonly where: string };

/** `schedule:` of an environment: how the plan judges the tasks' next runs. */
export interface ScheduleSettings {
  /** `dueMargin`: a run starting within this many minutes of now is flagged (default 15). */
  readonly dueMarginMinutes: number;
}

export const DEFAULT_DUE_MARGIN_MINUTES = 15;

/**
 * The change windows as apply found them (`ApplyReport.changeWindow`, the ledger): present when
 * the environment sets `changeWindows`. `overrideReason` is the `--override-window` reason of an
 * apply that wrote outside them.
 */
export interface ApplyWindowReport {
  readonly state: 'open' | 'closed' | 'frozen';
  /** When not open: why, and the next window (server zone and UTC). */
  readonly text?: string;
  readonly overrideReason?: string;
  /** The instant the windows were judged at when `MFTOPS_NOW` pinned the clock (not the real time). */
  readonly pinnedClock?: string;
}
