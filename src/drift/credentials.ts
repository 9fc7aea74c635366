import type { CredentialSection } from '../credentials/model.js';
import type { DriftReport } from './model.js';

/** The report with its keys-and-certificates section, in the model's key order; status untouched (never drift). */
export function withCredentials(report: DriftReport, credentials: CredentialSection | undefined): DriftReport {
  if (credentials === undefined) return report;
  const { plan, ...rest } = report;
  return { ...rest, credentials, plan };
}
