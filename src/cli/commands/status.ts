import { environmentStatus } from '../../app/status.js';
import { renderStatusJson, renderStatusText } from '../../render/status.js';
import { cliContext, environmentChoice } from '../app-context.js';
import type { CommandIo, GlobalOptions } from '../io.js';
import { withDefined } from '../../with-defined.js';
import { parseExpiringWithin } from './common.js';

/**
 * `mftops status`: the view of `environmentStatus`, one block per service. Read-only. Exit 0 when
 * every service answered, else 1: keys and certificates that expire do not change it (status is
 * informational; a check that must fail on them is a policy or a script over `--format json`).
 */
export async function runStatus(g: GlobalOptions, io: CommandIo, opts: { readonly expiringWithin?: string } = {}): Promise<number> {
  const expiringWithinDays = parseExpiringWithin(opts.expiringWithin);
  const ctx = cliContext(g, io);
  let report: Awaited<ReturnType<typeof environmentStatus>>;
  try {
    report = await environmentStatus(environmentChoice(g), ctx, withDefined({ expiringWithinDays }));
  } finally {
    ctx.finish();
  }
  io.stdout(g.format === 'json' ? renderStatusJson(report) : renderStatusText(report, withDefined({ environment: g.envFrom, configFile: g.configFrom })));
  return report.services.every((r) => r.ok) ? 0 : 1;
}
