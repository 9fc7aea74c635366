import { applyExitCode, type ApplyReport } from '../../apply/model.js';
import {
  renderApplyPhase,
  renderApprovalQuestion,
  renderChangeResultLine,
  renderApplySummaryGithub,
  renderApplySummaryJson,
  renderApplySummaryText,
} from '../../render/apply-summary.js';
import { applyEnvironment, sortApplyArguments } from '../../app/apply.js';
import type { ApplyOptions } from '../../app/apply.js';
import { parseWait, RUNNING_TASKS_MODES } from '../../app/apply-clock.js';
import { MAX_DELETES_RANGE, PARALLELISM_RANGE } from '../../app/defaults.js';
import { wholeNumberOption } from '../../app/environment.js';
import { ConfigError } from '../../errors.js';
import { cliContext, environmentChoice } from '../app-context.js';
import type { CommandIo, GlobalOptions } from '../io.js';
import { useColor, writeDiagnostics, writeError } from './common.js';
import { renderPlan } from './plan.js';
import { createInterface } from 'node:readline/promises';
import { withDefined } from '../../with-defined.js';

export interface ApplyCommandOptions {
  /** One saved plan file, or manifest files and folders (none: the environment's). */
  readonly args: readonly string[];
  /** `--target` addresses: plan and apply only these (refused with a plan file). */
  readonly target?: readonly string[];
  /** `--prune` / `--no-prune`; absent: neither (refused with a plan file). */
  readonly prune?: boolean;
  /** `--rotate-passwords` (refused with a plan file). */
  readonly rotatePasswords?: boolean;
  /** `--override-window "reason"`: apply outside the change windows. */
  readonly overrideWindow?: string;
  readonly autoApprove: boolean;
  readonly allowDelete: boolean;
  readonly allowReplace: boolean;
  readonly maxDeletes: string;
  readonly parallelism: string;
  /** `--running-tasks wait|skip|ignore`; absent (a library caller): `wait`. */
  readonly runningTasks?: string;
  /** `--running-wait` (`10m`). */
  readonly runningWait?: string;
  readonly pauseScheduler?: boolean;
}

/** What apply needs of the process beyond `CommandIo`: the terminal prompt and the signals. */
export interface ApplyCommandDeps {
  /** stdin is a terminal a person can answer on. */
  readonly canAsk: boolean;
  readonly ask: (question: string) => Promise<string>;
  readonly signals: Pick<NodeJS.EventEmitter, 'on' | 'off'>;
  /** The second Ctrl-C: revoke the tokens and leave at once. */
  readonly exitNow: (code: number) => void;
}

/**
 * `mftops apply [PLANFILE | PATH…]`: the view of `applyEnvironment`. A saved plan is applied
 * exactly (it was reviewed: no question); without one the plan is printed and a person asked on a
 * terminal unless --auto-approve. The first Ctrl-C lets the writes in flight finish; the second
 * leaves at once. Exit 0 only when everything was applied and verified (or there was nothing to
 * do), else 1.
 */
export async function runApply(g: GlobalOptions, opts: ApplyCommandOptions, io: CommandIo, deps: ApplyCommandDeps = processDeps()): Promise<number> {
  const parallelism = wholeNumberOption('--parallelism', opts.parallelism, PARALLELISM_RANGE.min, PARALLELISM_RANGE.max);
  const maxDeletes = wholeNumberOption('--max-deletes', opts.maxDeletes, MAX_DELETES_RANGE.min, MAX_DELETES_RANGE.max);
  const sorted = sortApplyArguments(opts.args, io);
  const planFile = 'planFile' in sorted ? sorted.planFile : undefined;
  if (planFile === undefined && !opts.autoApprove && !deps.canAsk) {
    throw new ConfigError('apply without a plan file asks for approval on a terminal, and there is none: pass --auto-approve (or apply a reviewed plan file)');
  }
  const color = useColor(g, io);
  const say = (line: string): void => {
    if (!g.quiet) io.stderr(`${line}\n`);
  };
  let planShown: Promise<void> = Promise.resolve();
  let planPrinted = false;
  const ctx = cliContext(g, io, (event) => {
    switch (event.kind) {
      case 'planned': {
        const { diagnostics } = event;
        if (diagnostics.diagnostics.length > 0) writeDiagnostics(g, io, diagnostics.diagnostics, diagnostics.manifestCount);
        // The plan as `mftops plan` shows it; JSON output carries only the final report.
        if (g.format !== 'json') {
          planPrinted = true;
          planShown = renderPlan(event.plan, g, color).then((text) => io.stdout(text));
          // Awaited before the question, or after the apply: a failure in between must not be an
          // unhandled rejection (the awaits still see it).
          planShown.catch(() => undefined);
        }
        return true;
      }
      case 'apply-phase':
        say(renderApplyPhase(event.phase, event.writes, event.parallelism));
        return true;
      case 'change-result':
        // What never started is said once, by the report on stdout (counted, not listed one by one).
        if (event.result.status !== 'skipped') say(renderChangeResultLine(event.result));
        return true;
      case 'abandoned':
        deps.exitNow(1);
        return true;
      default:
        return false;
    }
  });
  const stop = new AbortController();
  const abandon = new AbortController();
  const onSignal = (): void => {
    if (!stop.signal.aborted) {
      io.stderr('Interrupted: no new write starts; waiting for the writes in flight (Ctrl-C again to leave now)\n');
      stop.abort();
      return;
    }
    abandon.abort();
  };
  deps.signals.on('SIGINT', onSignal);
  deps.signals.on('SIGTERM', onSignal);
  // A dropped ssh session: the same as SIGTERM, not Node's default (exit at once, scheduler left stopped).
  deps.signals.on('SIGHUP', onSignal);
  let result: Awaited<ReturnType<typeof applyEnvironment>>;
  try {
    result = await applyEnvironment(
      {
        ...environmentChoice(g),
        ...sorted,
        ...(opts.target !== undefined && opts.target.length > 0 ? { targets: opts.target } : {}),
        ...withDefined({ prune: opts.prune }),
        ...(opts.rotatePasswords === true ? { rotatePasswords: true } : {}),
        ...withDefined({ overrideWindow: opts.overrideWindow }),
        permissions: { allowDelete: opts.allowDelete, allowReplace: opts.allowReplace, maxDeletes },
        parallelism,
        ...clockChoices(opts),
        ...(planFile === undefined && !opts.autoApprove
          ? {
              approve: async (plan) => {
                await planShown;
                return (await deps.ask(renderApprovalQuestion(plan))).trim() === 'yes';
              },
            }
          : {}),
        signal: stop.signal,
        abandon: abandon.signal,
      },
      ctx,
    );
  } finally {
    ctx.finish();
    deps.signals.off('SIGINT', onSignal);
    deps.signals.off('SIGTERM', onSignal);
    deps.signals.off('SIGHUP', onSignal);
  }
  await planShown;
  switch (result.status) {
    case 'invalid':
      writeDiagnostics(g, io, result.diagnostics.diagnostics, result.diagnostics.manifestCount, { alone: true });
      return 1;
    case 'cancelled':
      writeError(g, io, 'apply cancelled; nothing was written', 'Apply cancelled; nothing was written.');
      return 1;
    case 'finished': {
      io.stdout(await renderReport(result.report, g, planPrinted));
      return applyExitCode(result.report);
    }
    default: {
      const never: never = result;
      throw new Error(`unknown apply result ${JSON.stringify(never)}`);
    }
  }
}

// ---------------------------------------------------------------------------- running tasks

/** `--running-tasks`, `--running-wait` and `--pause-scheduler`, checked. */
function clockChoices(opts: ApplyCommandOptions): Pick<ApplyOptions, 'runningTasks' | 'runningWaitMs' | 'pauseScheduler'> {
  const mode = opts.runningTasks ?? 'wait';
  const runningTasks = RUNNING_TASKS_MODES.find((m) => m === mode);
  if (runningTasks === undefined) throw new ConfigError(`--running-tasks must be one of ${RUNNING_TASKS_MODES.join(', ')}, not ${JSON.stringify(mode)}`);
  const runningWaitMs = parseWait(opts.runningWait ?? '10m');
  if (runningWaitMs === undefined)
    throw new ConfigError(`--running-wait must be a duration such as 90s, 10m or 1h (at most 24h), not ${JSON.stringify(opts.runningWait)}`);
  return { runningTasks, runningWaitMs, pauseScheduler: opts.pauseScheduler === true };
}

// ------------------------------------------------------------------------------------- output

/** The report, with the policy checks when the plan that showed them was not printed (`planPrinted`: a saved plan). */
async function renderReport(report: ApplyReport, g: GlobalOptions, planPrinted: boolean): Promise<string> {
  switch (g.format) {
    case 'json':
      return renderApplySummaryJson(report);
    case 'text':
      return renderApplySummaryText(report, { policyShown: planPrinted });
    case 'github':
      return renderApplySummaryGithub(report, { policyShown: planPrinted });
    case 'markdown':
      // Refused before apply starts (src/cli/formats.ts).
      throw new Error(`bug: apply does not print ${g.format}`);
  }
}

// ------------------------------------------------------------------------------------ process

function processDeps(): ApplyCommandDeps {
  return {
    canAsk: Boolean(process.stdin.isTTY),
    ask: async (question) => {
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      // Ctrl-C at the question is a "no" (readline would otherwise only pause the input).
      const asking = new AbortController();
      rl.on('SIGINT', () => asking.abort());
      try {
        return await rl.question(question, { signal: asking.signal });
      } catch {
        return '';
      } finally {
        rl.close();
      }
    },
    signals: process,
    exitNow: (code) => process.exit(code),
  };
}
