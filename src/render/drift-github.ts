import type { DriftReport } from '../drift/model.js';
import { driftedHeadline } from './drift-common.js';
import { renderDriftMarkdown } from './drift-markdown.js';
import type { DriftMarkdownOptions } from './drift-markdown.js';
import { renderDriftedText } from './drift-text.js';
import { annotation } from './plan-github.js';
import { policyAnnotations } from './policy.js';

/**
 * `mftops drift --format github`: one warning annotation per drifted object, at the manifest's
 * file and line (`Task/x differs from its manifest`, with its differences as the text report
 * gives them, `git → server`), then the markdown report for the log or a job summary. Unmanaged
 * objects are named by no manifest: the markdown lists them, without annotations. A live object
 * that breaks a policy is an annotation too (an error for a deny), as plan gives it.
 */
export function renderDriftGithub(report: DriftReport, options: Pick<DriftMarkdownOptions, 'config'> = {}): string {
  const annotations = report.drifted.map((d) => `${annotation('warning', d.source, driftedHeadline(d), renderDriftedText(d))}\n`);
  const policy = policyAnnotations(report.policy).map((line) => `${line}\n`);
  return `${policy.join('')}${annotations.join('')}${renderDriftMarkdown(report, options)}`;
}
