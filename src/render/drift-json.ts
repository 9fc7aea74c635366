import type { DriftReport } from '../drift/model.js';
import { orderPlanKeys } from './plan-json.js';

/**
 * The drift report as JSON, the content of `--report FILE`: the report object with its keys in
 * a fixed order (verdict and counts first, the plan last), two-space indented.
 */
export function renderDriftJson(report: DriftReport): string {
  const ordered: DriftReport = {
    formatVersion: report.formatVersion,
    environment: report.environment,
    createdAt: report.createdAt,
    status: report.status,
    summary: report.summary,
    drifted: report.drifted,
    unmanaged: report.unmanaged,
    acknowledged: report.acknowledged,
    audit: report.audit,
    plan: orderPlanKeys(report.plan),
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}
