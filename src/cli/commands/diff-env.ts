import { PARALLELISM_RANGE } from '../../app/defaults.js';
import { diffEnvironments } from '../../app/diff-env.js';
import { wholeNumberOption } from '../../app/environment.js';
import { environmentsDiffer, type EnvironmentDiff } from '../../plan/diff-environments.js';
import { cliContext } from '../app-context.js';
import type { CommandIo, GlobalOptions } from '../io.js';
import { writeDiagnostics } from './common.js';
import { renderDiffEnvJson, renderDiffEnvMarkdown, renderDiffEnvText } from '../../render/diff-env.js';
import { withDefined } from '../../with-defined.js';

export interface DiffEnvCommandOptions {
  readonly a: string;
  readonly b: string;
  readonly offline: boolean;
  /** Concurrent reads per server, as typed. */
  readonly parallelism: string;
}

/**
 * `mftops diff-env A B`: what differs between two environments, on stdout; problems on stderr.
 * Read-only. Exit 0 when nothing differs, 2 when something does (as `plan --detailed-exitcode`),
 * 1 on an error.
 */
export async function runDiffEnv(g: GlobalOptions, opts: DiffEnvCommandOptions, io: CommandIo): Promise<number> {
  const parallelism = wholeNumberOption('--parallelism', opts.parallelism, PARALLELISM_RANGE.min, PARALLELISM_RANGE.max);
  const ctx = cliContext(g, io);
  let result: Awaited<ReturnType<typeof diffEnvironments>>;
  try {
    result = await diffEnvironments({ ...withDefined({ configFile: g.config }), a: opts.a, b: opts.b, offline: opts.offline, parallelism }, ctx);
  } finally {
    ctx.finish();
  }
  if (result.diagnostics.diagnostics.length > 0)
    writeDiagnostics(g, io, result.diagnostics.diagnostics, result.diagnostics.manifestCount, { alone: result.status === 'invalid' });
  if (result.status === 'invalid') return 1;
  io.stdout(await renderDiffEnv(result.diff, g));
  return environmentsDiffer(result.diff) ? 2 : 0;
}

async function renderDiffEnv(diff: EnvironmentDiff, g: GlobalOptions): Promise<string> {
  switch (g.format) {
    case 'text':
      return renderDiffEnvText(diff);
    case 'markdown':
      return renderDiffEnvMarkdown(diff);
    case 'json':
      return renderDiffEnvJson(diff);
    case 'github':
      // Refused before the command starts (src/cli/formats.ts).
      throw new Error('bug: diff-env has no github format');
  }
}
