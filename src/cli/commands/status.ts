import { environmentStatus } from '../../app/status.js';
import { renderStatusJson, renderStatusText } from '../../render/status.js';
import { cliContext, environmentChoice } from '../app-context.js';
import type { CommandIo, GlobalOptions } from '../io.js';
import { withDefined } from '../../with-defined.js';

/**
 * `mftops status`: the view of `environmentStatus`, one block per service. Read-only. Exit 0 when
 * every service answered, else 1.
 */
export async function runStatus(g: GlobalOptions, io: CommandIo): Promise<number> {
  const ctx = cliContext(g, io);
  let report: Awaited<ReturnType<typeof environmentStatus>>;
  try {
    report = await environmentStatus(environmentChoice(g), ctx);
  } finally {
    ctx.finish();
  }
  io.stdout(g.format === 'json' ? renderStatusJson(report) : renderStatusText(report, withDefined({ environment: g.envFrom, configFile: g.configFrom })));
  return report.services.every((r) => r.ok) ? 0 : 1;
}
