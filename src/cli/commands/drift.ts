import { driftEnvironment } from '../../app/drift.js';
import { adoptDrift } from '../../app/adopt-drift.js';
import { renderAdoptionText } from '../../render/adoption-text.js';
import { DEFAULTS, PARALLELISM_RANGE } from '../../app/defaults.js';
import { wholeNumberOption } from '../../app/environment.js';
import { driftExitCode, type DriftReport } from '../../drift/model.js';
import { cliContext, environmentChoice } from '../app-context.js';
import type { CommandIo, GlobalOptions } from '../io.js';
import { parseExpiringWithin, useColor, writeDiagnostics } from './common.js';
import { renderDriftText } from '../../render/drift-text.js';
import { renderDriftMarkdown } from '../../render/drift-markdown.js';
import { renderDriftGithub } from '../../render/drift-github.js';
import { renderDriftJson } from '../../render/drift-json.js';
import { withDefined } from '../../with-defined.js';
import { ConfigError } from '../../errors.js';

export interface DriftCommandOptions {
  readonly paths: readonly string[];
  /** Also write the JSON report to this file. */
  readonly report?: string;
  /** Concurrent reads per server, as typed; default 10. */
  readonly parallelism?: string;
  /** `--prune` / `--no-prune`; absent: neither. */
  readonly prune?: boolean;
  /** `--adopt [ADDRESS...]`: true (every drifted object) or the addresses given. */
  readonly adopt?: boolean | readonly string[];
  /** With --adopt: show the diff, write nothing. */
  readonly dryRun?: boolean;
  /** With --adopt: also edit manifests other environments load. */
  readonly shared?: boolean;
  /** `--expiring-within DAYS`, as typed (as status's); default 30 days. */
  readonly expiringWithin?: string;
}

/** What tests replace: the clock acknowledgements expire by. */
export interface DriftDependencies {
  readonly now?: () => Date;
}

/**
 * `mftops drift`: the report on stdout (text, markdown or json) and, with --report, as JSON in a
 * file. Exit 0 in sync, 2 drift, 1 error.
 */
export async function runDrift(g: GlobalOptions, opts: DriftCommandOptions, io: CommandIo, deps: DriftDependencies = {}): Promise<number> {
  const parallelism = wholeNumberOption('--parallelism', opts.parallelism ?? String(DEFAULTS.readParallelism), PARALLELISM_RANGE.min, PARALLELISM_RANGE.max);
  if (opts.adopt !== undefined && opts.adopt !== false) return runAdopt(g, opts, parallelism, io, deps);
  if (opts.dryRun === true) throw new ConfigError('--dry-run goes with --adopt (drift alone writes nothing)');
  if (opts.shared === true) throw new ConfigError('--shared goes with --adopt (drift alone writes nothing)');
  const ctx = { ...cliContext(g, io), ...withDefined({ now: deps.now }) };
  let result: Awaited<ReturnType<typeof driftEnvironment>>;
  try {
    result = await driftEnvironment(
      {
        ...environmentChoice(g),
        paths: opts.paths,
        parallelism,
        ...withDefined({ reportFile: opts.report, prune: opts.prune, expiringWithinDays: parseExpiringWithin(opts.expiringWithin) }),
      },
      ctx,
    );
  } finally {
    ctx.finish();
  }
  if (result.diagnostics.diagnostics.length > 0)
    writeDiagnostics(g, io, result.diagnostics.diagnostics, result.diagnostics.manifestCount, { alone: result.status === 'invalid' });
  if (result.status === 'invalid') return 1;
  io.stdout(await renderReport(result.report, g, useColor(g, io)));
  if (opts.report !== undefined && !g.quiet) io.stderr(`Wrote the drift report to ${opts.report}\n`);
  return driftExitCode(result.report);
}

/**
 * `mftops drift --adopt [ADDRESS...]`: the manifests rewritten to match the servers (text only).
 * Exit 0 when everything asked for was adopted (or was in sync), 1 when something was refused.
 */
async function runAdopt(g: GlobalOptions, opts: DriftCommandOptions, parallelism: number, io: CommandIo, deps: DriftDependencies): Promise<number> {
  if (g.format !== 'text') throw new ConfigError(`drift --adopt prints text only, not --format ${g.format}`);
  if (opts.report !== undefined) throw new ConfigError('--report goes with drift, not drift --adopt');
  if (opts.expiringWithin !== undefined) throw new ConfigError('--expiring-within goes with drift, not drift --adopt (adoption lists no keys)');
  const ctx = { ...cliContext(g, io), ...withDefined({ now: deps.now }) };
  let result: Awaited<ReturnType<typeof adoptDrift>>;
  try {
    result = await adoptDrift(
      {
        ...environmentChoice(g),
        paths: opts.paths,
        parallelism,
        addresses: Array.isArray(opts.adopt) ? opts.adopt : [],
        dryRun: opts.dryRun === true,
        shared: opts.shared === true,
        ...withDefined({ prune: opts.prune }),
      },
      ctx,
    );
  } finally {
    ctx.finish();
  }
  if (result.diagnostics.diagnostics.length > 0)
    writeDiagnostics(g, io, result.diagnostics.diagnostics, result.diagnostics.manifestCount, { alone: result.status === 'invalid' });
  if (result.status === 'invalid') return 1;
  io.stdout(renderAdoptionText(result.report));
  return result.report.refused.length > 0 ? 1 : 0;
}

async function renderReport(report: DriftReport, g: GlobalOptions, color: boolean): Promise<string> {
  // The ways out name the file --config gave, so that they run as printed (MFTOPS_CONFIG stays in the shell).
  const command = withDefined({ config: g.configFrom === undefined ? g.config : undefined });
  switch (g.format) {
    case 'text': {
      return renderDriftText(report, { color, ...command });
    }
    case 'markdown': {
      return renderDriftMarkdown(report, command);
    }
    case 'github': {
      return renderDriftGithub(report, command);
    }
    case 'json': {
      return renderDriftJson(report);
    }
  }
}
