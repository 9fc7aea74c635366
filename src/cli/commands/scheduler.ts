import { startEnvironmentScheduler } from '../../app/scheduler.js';
import { cliContext, environmentChoice } from '../app-context.js';
import type { CommandIo, GlobalOptions } from '../io.js';
import { renderJsonOutput } from '../../render/json-output.js';

/** `mftops scheduler start`: the view of `startEnvironmentScheduler`, one line. Exit 0 once it runs. */
export async function runSchedulerStart(g: GlobalOptions, io: CommandIo, options: { readonly force?: boolean } = {}): Promise<number> {
  const ctx = cliContext(g, io);
  let report: Awaited<ReturnType<typeof startEnvironmentScheduler>>;
  try {
    report = await startEnvironmentScheduler(environmentChoice(g), ctx, options);
  } finally {
    ctx.finish();
  }
  if (g.format === 'json') {
    io.stdout(renderJsonOutput('mftops.scheduler.start', report));
    return 0;
  }
  const note =
    report.clearedNote !== undefined ? ` (stopped by mftops apply ${report.clearedNote.apply} at ${report.clearedNote.stoppedAt}; its note is removed)` : '';
  io.stdout(
    report.wasRunning
      ? `The automation scheduler of environment "${report.environment}" was running already${note}.\n`
      : `Started the automation scheduler of environment "${report.environment}"${note}.\n`,
  );
  return 0;
}
