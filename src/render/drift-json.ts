import { credentialSectionJson } from './credential-expiry.js';
import { withDefined } from '../with-defined.js';
import type { DriftReport } from '../drift/model.js';
import { envelopeOf, type JsonEnvelope } from './json-output.js';
import { accessJsonView, planJsonView } from './plan-json.js';
import type { AccessJsonView, PlanJsonView } from './plan-json.js';

/** The drift report as JSON: the report with its envelope, the plan as its public view. */
export type DriftJsonView = Omit<DriftReport, 'plan' | 'access' | 'credentials'> &
  JsonEnvelope<'mftops.drift'> & { readonly access?: AccessJsonView; readonly credentials?: Record<string, unknown>; readonly plan: PlanJsonView };

/**
 * The drift report as JSON, `mftops drift --format json` and the content of `--report FILE`: the
 * report object with its keys in a fixed order (envelope, verdict and counts first, the plan last,
 * as its public `--format json` view), two-space indented.
 */
export function renderDriftJson(report: DriftReport): string {
  const ordered: DriftJsonView = {
    ...envelopeOf('mftops.drift'),
    environment: report.environment,
    createdAt: report.createdAt,
    status: report.status,
    summary: report.summary,
    drifted: report.drifted,
    unmanaged: report.unmanaged,
    ...(report.unmanagedOmitted !== undefined ? { unmanagedOmitted: report.unmanagedOmitted } : {}),
    acknowledged: report.acknowledged,
    audit: report.audit,
    ...(report.access !== undefined ? { access: accessJsonView(report.access) } : {}),
    ...(report.policy !== undefined ? { policy: report.policy } : {}),
    ...(report.accounts !== undefined ? { accounts: report.accounts } : {}),
    ...withDefined({ credentials: report.credentials === undefined ? undefined : credentialSectionJson(report.credentials) }),
    plan: planJsonView(report.plan),
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}
