import { planEnvironment } from '../../app/plan.js';
import { PARALLELISM_RANGE } from '../../app/defaults.js';
import { wholeNumberOption } from '../../app/environment.js';
import { hasChanges, type Plan } from '../../plan/model.js';
import { cliContext, environmentChoice } from '../app-context.js';
import type { CommandIo } from '../io.js';
import type { GlobalOptions } from '../main.js';
import { useColor, writeDiagnostics } from './common.js';

export interface PlanCommandOptions {
  readonly paths: readonly string[];
  readonly out?: string;
  readonly detailedExitcode: boolean;
  readonly target: readonly string[];
  readonly parallelism: string;
}

/**
 * `mftops plan`: the plan on stdout and, with --out, in a file; problems on stderr.
 * Exit 0 no changes (or any plan without --detailed-exitcode), 2 changes with it, 1 error.
 */
export async function runPlan(g: GlobalOptions, opts: PlanCommandOptions, io: CommandIo): Promise<number> {
  const parallelism = wholeNumberOption('--parallelism', opts.parallelism, PARALLELISM_RANGE.min, PARALLELISM_RANGE.max);
  const ctx = cliContext(g, io);
  let result: Awaited<ReturnType<typeof planEnvironment>>;
  try {
    result = await planEnvironment(
      { ...environmentChoice(g), paths: opts.paths, targets: opts.target, parallelism, ...(opts.out !== undefined ? { out: opts.out } : {}) },
      ctx,
    );
  } finally {
    ctx.finish();
  }
  if (result.diagnostics.diagnostics.length > 0) writeDiagnostics(g, io, result.diagnostics.diagnostics, result.diagnostics.manifestCount, { alone: result.status === 'invalid' });
  if (result.status === 'invalid') return 1;
  io.stdout(await renderPlan(result.plan, g, useColor(g, io)));
  if (opts.out !== undefined && !g.quiet) io.stderr(`Saved the plan to ${opts.out}; apply it exactly with: mftops apply ${opts.out}\n`);
  return opts.detailedExitcode && hasChanges(result.plan) ? 2 : 0;
}

/** The plan in the chosen format (renderers load lazily: each costs start-up time). */
export async function renderPlan(plan: Plan, g: GlobalOptions, color: boolean): Promise<string> {
  switch (g.format) {
    case 'text': {
      const { renderPlanText } = await import('../../render/plan-text.js');
      return renderPlanText(plan, { color });
    }
    case 'markdown': {
      const { renderPlanMarkdown } = await import('../../render/plan-markdown.js');
      return renderPlanMarkdown(plan);
    }
    case 'github': {
      const { renderPlanGithub } = await import('../../render/plan-github.js');
      return renderPlanGithub(plan);
    }
    case 'json': {
      const { renderPlanJson } = await import('../../render/plan-json.js');
      return renderPlanJson(plan);
    }
  }
}
