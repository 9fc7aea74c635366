import { showPlanFile } from '../../app/show.js';
import type { CommandIo, GlobalOptions } from '../io.js';
import { useColor } from './common.js';
import { renderPlan } from './plan.js';

/**
 * `mftops show PLANFILE`: the view of `showPlanFile`. The saved plan on stdout as `mftops plan`
 * printed it, in the format asked for (text, markdown, json). Exit 0, or 1 when the file is not
 * a plan apply would run.
 */
export async function runShow(g: GlobalOptions, opts: { readonly planFile: string }, io: CommandIo): Promise<number> {
  const result = await showPlanFile({ planFile: opts.planFile }, io);
  io.stdout(await renderPlan(result.plan, g, useColor(g, io)));
  return 0;
}
