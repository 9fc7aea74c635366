import { resolve } from 'node:path';
import type { Plan } from '../plan/model.js';
import type { AppContext } from './context.js';
import { readSavedPlan } from './plan-file.js';

export interface ShowOptions {
  /** A plan file saved by `plan --out` (relative to `cwd`), whatever its name. */
  readonly planFile: string;
}

/**
 * - `shown`: the saved plan, checked as apply checks it (format, checksum, schema, order), with
 *   the absolute path it was read from and the configuration file it records (when it does).
 */
export type ShowResult = { readonly status: 'shown'; readonly plan: Plan; readonly file: string; readonly configFile?: string };

/**
 * Read a saved plan to show it, as `terraform show PLANFILE` does: no configuration, no server,
 * only the file. A file apply would refuse (edited, of another format) is refused here too, so
 * what is shown is what apply would run.
 */
export async function showPlanFile(options: ShowOptions, ctx: Pick<AppContext, 'cwd'>): Promise<ShowResult> {
  const file = resolve(ctx.cwd, options.planFile);
  const saved = readSavedPlan(file);
  return { status: 'shown', plan: saved.plan, file, ...(saved.configFile !== undefined ? { configFile: saved.configFile } : {}) };
}
