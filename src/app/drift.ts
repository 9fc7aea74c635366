import { expiryClock } from './status-credentials.js';
import { resolve } from 'node:path';
import { writeFileAtomicSync } from '../atomic-file.js';
import type { DriftReport } from '../drift/model.js';
import { systemError } from '../errors.js';
import type { DiagnosticsReport } from '../render/diagnostics.js';
import { openReadonlyClients, progressEvents } from './clients.js';
import { readWhileLoading } from './read-while-loading.js';
import type { AppContext, EnvironmentChoice } from './context.js';
import { serverIdentities } from './environment.js';
import type { ReadPrelude } from './environment.js';
import type { LiveState } from '../live/model.js';
import { reportOf } from './plan.js';
import { detectDrift } from './detect-drift.js';
import { hasErrors } from '../manifest/diagnostics.js';
import { renderDriftJson } from '../render/drift-json.js';
import { withDefined } from '../with-defined.js';

export interface DriftOptions extends EnvironmentChoice {
  /** Manifest files and folders (relative to `cwd`); default: the environment's. */
  readonly paths?: readonly string[];
  /** Also write the JSON report here (relative to `cwd`). */
  readonly reportFile?: string;
  readonly parallelism?: number;
  /**
   * As for plan (`choosePrune`): which unmanaged objects apply would delete. With paths other
   * than the environment's, unmanaged objects are listed only when true.
   */
  readonly prune?: boolean;
  /** Keys and certificates expiring within this many days are listed; default 30. */
  readonly expiringWithinDays?: number;
}

/**
 * - `invalid`: the manifests (or names the servers do not know) have errors: no report.
 * - `reported`: the report (in sync or not), the warnings on the way, the file it was written to.
 */
export type DriftResult =
  | { readonly status: 'invalid'; readonly diagnostics: DiagnosticsReport }
  | { readonly status: 'reported'; readonly report: DriftReport; readonly diagnostics: DiagnosticsReport; readonly reportFile?: string };

/**
 * Drift of an environment: a plan of every manifest plus the unmanaged objects in scope, through
 * read-only clients, with who changed what from the audit report.
 */
export async function driftEnvironment(options: DriftOptions, ctx: AppContext): Promise<DriftResult> {
  const detected = await detectEnvironmentDrift(options, ctx);
  if (detected.status === 'invalid') return detected;
  const { report, diagnostics } = detected;
  let reportFile: string | undefined;
  if (options.reportFile !== undefined) {
    reportFile = resolve(ctx.cwd, options.reportFile);
    writeReportFile(reportFile, renderDriftJson(report));
  }
  return { status: 'reported', report, diagnostics, ...(reportFile !== undefined ? { reportFile } : {}) };
}

/** What `drift` and `drift --adopt` both start from: the report, the live state it was made from, the environment read. */
export type DetectedDrift =
  | { readonly status: 'invalid'; readonly diagnostics: DiagnosticsReport }
  | {
      readonly status: 'detected';
      readonly report: DriftReport;
      readonly live: LiveState;
      readonly diagnostics: DiagnosticsReport;
      readonly prelude: Extract<ReadPrelude, { status: 'ready' }>;
    };

/** The drift of an environment through read-only clients (closed before it returns). */
export async function detectEnvironmentDrift(
  options: Omit<DriftOptions, 'reportFile'> & { readonly unacknowledged?: readonly string[] },
  ctx: AppContext,
): Promise<DetectedDrift> {
  const ahead = await readWhileLoading(options, ctx);
  const prelude = ahead.prelude;
  if (prelude.status === 'invalid') return prelude;
  const { config, env, services, parallelism, manifests, prune } = prelude;
  const clients = ahead.clients ?? (await openReadonlyClients(services, ctx, { parallelism }));
  let result: Awaited<ReturnType<typeof detectDrift>>;
  try {
    result = await detectDrift({
      manifests,
      clients: clients.readers,
      environment: env,
      ...(prune.off ? { pruneOff: prune.off } : {}),
      partial: prune.partial,
      servers: serverIdentities(services),
      parallelism,
      progress: progressEvents(ctx),
      cwd: ctx.cwd,
      locateIgnore: (i) => config.sourceMap.locate(['environments', env.name, 'drift', 'ignore', i, 'address']),
      locateAllowed: (i) => config.sourceMap.locate(['environments', env.name, 'privilegedAccounts', 'allowUnmanaged', i]),
      ...(ctx.now ? { now: ctx.now } : {}),
      ...withDefined({ unacknowledged: options.unacknowledged, expiringWithinDays: options.expiringWithinDays }),
      expiryNow: expiryClock(ctx),
    });
  } finally {
    await clients.close();
  }
  const diagnostics = reportOf(manifests, result.diagnostics);
  if (result.report === undefined || result.live === undefined || hasErrors(result.diagnostics)) return { status: 'invalid', diagnostics };
  return { status: 'detected', report: result.report, live: result.live, diagnostics, prelude };
}

/** Written beside the target and renamed into place: a reader never sees half a report. */
function writeReportFile(path: string, text: string): void {
  try {
    writeFileAtomicSync(path, text, { mode: 0o666 });
  } catch (err) {
    throw systemError(`cannot write the drift report to ${path}`, err);
  }
}
