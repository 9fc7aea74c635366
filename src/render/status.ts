import type { ServiceName } from '../config/model.js';
import { renderJsonOutput } from './json-output.js';
import type { CredentialSection } from './credential-expiry.js';
import { credentialSectionJson, credentialSectionLines } from './credential-expiry.js';
import { withDefined } from '../with-defined.js';

/** What `mftops status` found for one service of an environment. */
export interface ServiceStatus {
  readonly service: ServiceName;
  readonly url: string;
  /** Connection and credentials worked and every count was read. */
  readonly ok: boolean;
  /** One line, already in the user's terms (never holds a secret). */
  readonly error?: string;
  /** Server application version, when the API tells it. */
  readonly version?: string;
  readonly username?: string;
  /** The account's role as the server reports it (automation: admin or not; transfer: permission). */
  readonly role?: string;
  /** Object counts, in display order. */
  readonly counts: readonly StatusCount[];
  /** HTTP requests this check took, token calls included. */
  readonly requests?: number;
  /**
   * Automation only: keys and certificates expired or expiring (issue 28 item 5); absent when the
   * server has none and every list was readable.
   */
  readonly credentials?: CredentialSection;
}

/**
 * What a status count counts: an identifier, the key of the JSON output (`resourceGroups`); the
 * text output says it in words (`resource groups`).
 */
export type StatusCountKey = 'tasks' | 'hosts' | 'resourceGroups' | 'resourceGroupAcls' | 'users' | 'groups';

export interface StatusCount {
  readonly key: StatusCountKey;
  readonly count: number;
}

export interface StatusReport {
  readonly environment: string;
  readonly configFile: string;
  readonly services: readonly ServiceStatus[];
  /** The automation scheduler (issue 28 item 4); absent when the environment has no automation service. */
  readonly scheduler?: SchedulerStatus;
}

/**
 * Whether the automation scheduler runs, and the recovery note an `apply --pause-scheduler` that
 * never started it again left behind (`src/apply/scheduler-note.ts`).
 */
export interface SchedulerStatus {
  /** Absent when it could not be read (`error` says why). */
  readonly running?: boolean;
  readonly error?: string;
  /** The apply that stopped it and did not start it again. */
  readonly stoppedBy?: { readonly apply: string; readonly stoppedAt: string; readonly pid: number; readonly host: string };
  /** The apply in progress that stopped it for its writes (and starts it again when they finish). */
  readonly pausedBy?: { readonly apply: string; readonly pid: number; readonly host: string };
  /** The command that starts it, when it is stopped (or a note says an apply stopped it). */
  readonly startWith?: string;
}

/** `from`: the variables that chose the environment or the file (MFTOPS_ENV), said beside them. */
export function renderStatusText(report: StatusReport, from: { readonly environment?: string; readonly configFile?: string } = {}): string {
  const env = from.environment !== undefined ? `${report.environment} (from ${from.environment})` : report.environment;
  const file = from.configFile !== undefined ? `${report.configFile}, from ${from.configFile}` : report.configFile;
  const lines = [`Environment ${env} (${file})`];
  for (const s of report.services) {
    lines.push(`  ${s.service.padEnd(10)} ${s.url}`);
    if (!s.ok) {
      lines.push(`    error: ${s.error ?? 'unknown error'}`);
      continue;
    }
    const who = s.username ? `${s.username}${s.role ? ` (${s.role})` : ''}` : undefined;
    lines.push(`    ok${s.version ? `, version ${s.version}` : ''}${who ? `, signed in as ${who}` : ''}`);
    if (s.counts.length > 0) lines.push(`    ${s.counts.map((c) => `${c.count} ${NOUNS[c.key]}`).join(', ')}`);
    if (s.credentials !== undefined) lines.push(...credentialSectionLines(s.credentials, '    '));
  }
  pushSchedulerStatus(lines, report.scheduler);
  const failed = report.services.filter((s) => !s.ok).length;
  lines.push(failed === 0 ? `All ${report.services.length} services reachable.` : `${failed} of ${report.services.length} services failed.`);
  return `${lines.join('\n')}\n`;
}

/** The scheduler's line, and a warning when it is stopped: which apply left it so, and how to start it. */
function pushSchedulerStatus(lines: string[], s: SchedulerStatus | undefined): void {
  // A running scheduler with no note is the usual case: said only in the JSON document.
  if (s === undefined || (s.running === true && s.stoppedBy === undefined)) return;
  if (s.running === undefined) lines.push(`  scheduler  unknown: ${s.error ?? 'could not be read'}`);
  else lines.push(`  scheduler  ${s.running ? 'running' : 'STOPPED'}`);
  if (s.pausedBy !== undefined) {
    lines.push(`note: an apply in progress (pid ${s.pausedBy.pid}) stopped it for its writes; it starts it again when they finish`);
  } else if (s.stoppedBy !== undefined) {
    const by = s.stoppedBy;
    lines.push(
      `warning: mftops apply ${by.apply} stopped the automation scheduler at ${by.stoppedAt} (pid ${by.pid} on ${by.host}) and did not start it again${s.running === true ? '; it runs now, so the note is out of date: mftops scheduler start clears it' : ''}`,
    );
  } else if (s.running === false) lines.push('warning: the automation scheduler is stopped: no task runs on its schedule');
  if (s.startWith !== undefined) lines.push(`  start it with: ${s.startWith}`);
}

/** The `mftops.status` document; counts as an object keyed by identifier, in display order. */
export function renderStatusJson(report: StatusReport): string {
  return renderJsonOutput('mftops.status', {
    environment: report.environment,
    configFile: report.configFile,
    services: report.services.map(({ credentials, ...s }) => ({
      ...s,
      counts: Object.fromEntries(s.counts.map((c) => [c.key, c.count])),
      ...withDefined({ credentials: credentials === undefined ? undefined : credentialSectionJson(credentials) }),
    })),
    ...withDefined({ scheduler: report.scheduler }),
  });
}

/** What the text output calls each count. */
const NOUNS: Readonly<Record<StatusCountKey, string>> = {
  tasks: 'tasks',
  hosts: 'hosts',
  resourceGroups: 'resource groups',
  resourceGroupAcls: 'resource-group ACLs',
  users: 'users',
  groups: 'groups',
};
