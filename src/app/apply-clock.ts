import { resolve } from 'node:path';
import { createRunningTaskGate, DEFAULT_RUNNING_POLL_MS, DEFAULT_RUNNING_WAIT_MS } from '../apply/running-tasks.js';
import type { ChangeGate, RunningTasksMode } from '../apply/running-tasks.js';
import type { EnvironmentSettings, MftopsConfig, ResolvedService } from '../config/model.js';
import { ConfigError } from '../errors.js';
import type { OpenClients } from './clients.js';
import type { WindowClose } from './server-calendar.js';
import type { AppContext } from './context.js';
import { createSchedulerPause } from './scheduler-pause.js';
import type { SchedulerPause } from './scheduler-pause.js';
import { withDefined } from '../with-defined.js';

export { parseWait, RUNNING_TASKS_MODES } from '../apply/running-tasks.js';

/** What apply does about the automation server's clock-bound work (issue 28 items 2 and 4). */
export interface ApplyClockOptions {
  /** Asked before each task write; absent with `--running-tasks ignore` or no automation service. */
  readonly gate?: ChangeGate;
  /** `--pause-scheduler`. */
  readonly pause?: SchedulerPause;
}

/** How long a crash path or a second Ctrl-C gives the scheduler's start before leaving. */
export const SCHEDULER_RESUME_TIMEOUT_MS = 10_000;

/** `MFTOPS_RUNNING_POLL_MS`: how often `--running-tasks wait` asks again (tests shorten it; no flag, since nobody else needs to). */
const POLL_VARIABLE = 'MFTOPS_RUNNING_POLL_MS';

export function clockOptions(
  options: {
    readonly runningTasks?: RunningTasksMode;
    readonly runningWaitMs?: number;
    readonly pauseScheduler?: boolean;
    readonly signal?: AbortSignal;
    /** When the change window apply started in closes (on `Date.now`'s clock): no wait outlasts it. */
    readonly windowCloses?: WindowClose;
  },
  services: readonly ResolvedService[],
  env: EnvironmentSettings,
  config: MftopsConfig,
  clients: OpenClients,
  ctx: Pick<AppContext, 'env'>,
): ApplyClockOptions {
  const automation = clients.full.automation;
  const service = services.find((s) => s.name === 'automation');
  if (options.pauseScheduler === true && (automation === undefined || service === undefined)) {
    throw new ConfigError(`--pause-scheduler: environment "${env.name}" has no automation service, whose scheduler it would stop`);
  }
  const gate =
    automation === undefined
      ? undefined
      : createRunningTaskGate({
          mode: options.runningTasks ?? 'wait',
          waitMs: options.runningWaitMs ?? DEFAULT_RUNNING_WAIT_MS,
          pollMs: pollInterval(ctx.env),
          read: () => automation.listRunningTasks(),
          ...withDefined({ signal: options.signal, windowCloses: options.windowCloses }),
        });
  const pause =
    options.pauseScheduler === true && automation !== undefined && service !== undefined
      ? createSchedulerPause({ client: automation, dir: resolve(config.snapshots.dir, env.name), environment: env.name, automationUrl: service.url })
      : undefined;
  return withDefined({ gate, pause });
}

function pollInterval(env: Readonly<Record<string, string | undefined>>): number {
  const text = env[POLL_VARIABLE];
  if (text === undefined || text === '') return DEFAULT_RUNNING_POLL_MS;
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms < 1 || ms > 600_000)
    throw new ConfigError(`${POLL_VARIABLE} must be a whole number of milliseconds from 1 to 600000, not ${JSON.stringify(text)}`);
  return ms;
}
