import { planEnvironment } from '../../app/plan.js';
import { DEFAULTS, PARALLELISM_RANGE } from '../../app/defaults.js';
import { wholeNumberOption } from '../../app/environment.js';
import { hasChanges, type Plan } from '../../plan/model.js';
import { cliContext, environmentChoice } from '../app-context.js';
import type { Diagnostic } from '../../diagnostics.js';
import type { CommandIo, GlobalOptions } from '../io.js';
import { useColor, writeDiagnostics } from './common.js';
import { withDefined } from '../../with-defined.js';

export interface PlanCommandOptions {
  readonly paths: readonly string[];
  readonly out?: string;
  readonly detailedExitcode: boolean;
  readonly target: readonly string[];
  readonly parallelism: string;
  /** `--prune` / `--no-prune`; absent: neither. */
  readonly prune?: boolean;
  /** `--rotate-passwords`. */
  readonly rotatePasswords?: boolean;
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
      {
        ...environmentChoice(g),
        paths: opts.paths,
        targets: opts.target,
        parallelism,
        ...withDefined({ out: opts.out, prune: opts.prune }),
        ...(opts.rotatePasswords === true ? { rotatePasswords: true } : {}),
      },
      ctx,
    );
  } finally {
    ctx.finish();
  }
  if (result.diagnostics.diagnostics.length > 0)
    writeDiagnostics(g, io, result.diagnostics.diagnostics, result.diagnostics.manifestCount, { alone: result.status === 'invalid' });
  if (result.status === 'invalid') return 1;
  io.stdout(await renderPlan(result.plan, g, useColor(g, io), result.diagnostics.diagnostics));
  if (result.status === 'denied') {
    // On stderr in every format: with --format json, stdout holds the one plan document, violations included.
    io.stderr(`mftops: error: a deny policy is violated; the plan is refused${opts.out !== undefined ? ` and not saved to ${opts.out}` : ''}.\n`);
    return 1;
  }
  if (opts.out !== undefined && !g.quiet) io.stderr(savedPlanHint(opts.out, result.plan));
  return opts.detailedExitcode && hasChanges(result.plan) ? 2 : 0;
}

/**
 * Where the plan was saved and the command that applies it, to run as is from the same folder:
 * the plan file records its configuration and environment. What apply will refuse without a flag
 * (deletes, replaces) is said after it, not added to it: that stays a decision.
 */
export function savedPlanHint(out: string, plan: Plan): string {
  const { delete: deletes, replace: replaces } = plan.summary;
  const flags = [
    ...(deletes > 0 ? [`--allow-delete (it deletes ${deletes} ${deletes === 1 ? 'object' : 'objects'})`] : []),
    ...(replaces > 0 ? [`--allow-replace (it replaces ${replaces} ${replaces === 1 ? 'object' : 'objects'})`] : []),
    ...(deletes > DEFAULTS.maxDeletes ? [`--max-deletes ${deletes}`] : []),
  ];
  const needs = flags.length > 0 ? `\nApply refuses it without ${flags.join(', ')}.` : '';
  return `Saved the plan to ${out}; apply it exactly with: mftops apply ${shellWord(out)}${needs}\n`;
}

/** A path as a POSIX shell reads it back, never as an option: as is when it is plain, else in single quotes. */
function shellWord(path: string): string {
  const word = path.startsWith('-') ? `./${path}` : path;
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The plan in the chosen format; markdown puts the `diagnostics` that make apply refuse the plan
 * (MF414) in its verdict. A promise: apply prints it while the use case goes on. Each renderer is
 * loaded when its format is asked for: `apply --format json` prints no plan and loads none (the
 * diff library and 10 of our modules, measured: issue 29).
 */
export async function renderPlan(plan: Plan, g: GlobalOptions, color: boolean, diagnostics: readonly Diagnostic[] = []): Promise<string> {
  switch (g.format) {
    case 'text':
      return (await import('../../render/plan-text.js')).renderPlanText(plan, { color });
    case 'markdown':
      return (await import('../../render/plan-markdown.js')).renderPlanMarkdown(plan, { diagnostics });
    case 'github':
      return (await import('../../render/plan-github.js')).renderPlanGithub(plan);
    case 'json':
      return (await import('../../render/plan-json.js')).renderPlanJson(plan);
  }
}
