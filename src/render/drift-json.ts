import type { DriftReport } from '../drift/model.js';
import { planJsonView } from './plan-json.js';
import type { PlanJsonView } from './plan-json.js';

/**
 * The drift report as JSON, the content of `--report FILE`: the report object with its keys in
 * a fixed order (verdict and counts first, the plan last, as its public `--format json` view),
 * two-space indented.
 */
export function renderDriftJson(report: DriftReport): string {
  const ordered: Omit<DriftReport, 'plan'> & { readonly plan: PlanJsonView } = {
    formatVersion: report.formatVersion,
    environment: report.environment,
    createdAt: report.createdAt,
    status: report.status,
    summary: report.summary,
    drifted: report.drifted,
    unmanaged: report.unmanaged,
    ...(report.unmanagedOmitted !== undefined ? { unmanagedOmitted: report.unmanagedOmitted } : {}),
    acknowledged: report.acknowledged,
    audit: report.audit,
    plan: planJsonView(report.plan),
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}
