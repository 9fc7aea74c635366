import { resolve } from 'node:path';
import type { ApplyReport } from '../apply/model.js';
import type { Plan } from '../plan/model.js';
import { displayPath } from '../render/diagnostics.js';
import type { AnnotationPlace } from './workflow-commands.js';

/** One error annotation of a failed change: at the manifest that declares the object, when it has one. */
export interface ChangeAnnotation {
  readonly message: string;
  readonly place: AnnotationPlace;
}

/**
 * An annotation per change the apply could not make, placed at its `source` in the plan, so that
 * GitHub shows the failure on the manifest line (and on a pull request's diff), not only in the
 * log. A change without a source (the delete of an unmanaged object) is annotated without a file.
 * Sources are relative to the folder the plan was made in, which for the Action is the workspace.
 */
export function failedChangeAnnotations(report: ApplyReport, plan: Plan, cwd: string): ChangeAnnotation[] {
  const sources = new Map(plan.changes.map((c) => [c.address, c.source]));
  return report.results
    .filter((r) => r.status === 'failed')
    .map((r) => {
      const source = sources.get(r.address);
      const title = 'mftops apply';
      return {
        message: `${r.address} (${r.action}) failed: ${r.error ?? 'failed'}`,
        place: source === undefined ? { title } : { file: displayPath(resolve(cwd, source.file), cwd), line: source.line, col: source.col, title },
      };
    });
}
