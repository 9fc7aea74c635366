import type { CredentialKind, CredentialSection, CredentialStanding, CredentialUser } from '../credentials/model.js';
import { withDefined } from '../with-defined.js';

// The expiry report of `mftops status` and drift, as text, markdown and JSON. Pure.

export type { CredentialSection } from '../credentials/model.js';

const NOUN: Readonly<Record<CredentialKind, readonly [string, string]>> = {
  pgp: ['PGP key', 'PGP keys'],
  ssh: ['SSH key', 'SSH keys'],
  ssl: ['SSL certificate', 'SSL certificates'],
};

const KINDS: readonly CredentialKind[] = ['pgp', 'ssh', 'ssl'];

function count(kind: CredentialKind, n: number): string {
  return `${n} ${NOUN[kind][n === 1 ? 0 : 1]}`;
}

function day(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** `expired 2026-11-01 (26 days ago)`, `expires 2026-12-10 (in 12 days)`, `expiry unreadable (ExpDate "soon")`. */
export function describeExpiry(s: CredentialStanding): string {
  const e = s.credential.expiry;
  switch (e.kind) {
    case 'never':
      return 'never expires';
    case 'unreadable':
      return `expiry unreadable (${e.field} ${JSON.stringify(e.text)})`;
    case 'at': {
      const d = s.daysLeft ?? 0;
      if (s.state === 'expired') {
        const ago = -d - 1;
        return `expired ${day(e.at)} (${ago <= 0 ? 'within the last day' : `${ago} day${ago === 1 ? '' : 's'} ago`})`;
      }
      return `expires ${day(e.at)} (${d === 0 ? 'within a day' : `in ${d} day${d === 1 ? '' : 's'}`})`;
    }
    default: {
      const never: never = e;
      throw new Error(`unknown expiry ${JSON.stringify(never)}`);
    }
  }
}

function describeUser(u: CredentialUser): string {
  return `${u.type} ${u.name} (${u.field})`;
}

function title(s: CredentialStanding): string {
  const c = s.credential;
  const id = c.kind === 'ssl' ? `thumbprint ${c.id}` : `ID ${c.id}`;
  return `${NOUN[c.kind][0]} ${c.name} (${id})`;
}

/** The section as text lines, each indented by `indent`, the first starting with `label`. */
export function credentialSectionLines(section: CredentialSection, indent: string, label = 'keys and certificates: '): string[] {
  if (!section.ok) return [`${indent}${label}not read: ${section.error}`];
  const { report } = section;
  const lines = [
    `${indent}${label}${KINDS.map((k) => count(k, report.counted[k])).join(', ')}; expired, expiring within ${report.withinDays} days or unreadable: ${report.items.length === 0 ? 'none' : report.items.length}`,
  ];
  for (const u of section.unavailable) lines.push(`${indent}  ${NOUN[u.kind][1]}: not readable (HTTP ${u.status})`);
  for (const s of report.items) {
    lines.push(`${indent}  ${s.state.toUpperCase().padEnd(10)} ${title(s)} ${describeExpiry(s)}`);
    lines.push(`${indent}  ${''.padEnd(10)} ${s.users.length === 0 ? 'used by no host or task' : `used by ${s.users.map(describeUser).join(', ')}`}`);
  }
  return lines;
}

/** The section as markdown: a table, expired first. Names are escaped for a table cell. */
export function credentialSectionMarkdown(section: CredentialSection): string {
  if (!section.ok) return `### Expiring keys and certificates\n\nNot read: ${cell(section.error)}\n`;
  const { report } = section;
  const out = [`### Expiring keys and certificates`, ''];
  if (report.items.length === 0) out.push(`None expired or expiring within ${report.withinDays} days.`);
  else {
    out.push(`Expired, or expiring within ${report.withinDays} days:`, '', '| State | Key or certificate | Expiry | Used by |', '|---|---|---|---|');
    for (const s of report.items)
      out.push(`| ${s.state} | ${cell(title(s))} | ${cell(describeExpiry(s))} | ${s.users.length === 0 ? '—' : cell(s.users.map(describeUser).join(', '))} |`);
  }
  for (const u of section.unavailable) out.push('', `${NOUN[u.kind][1]}: not readable (HTTP ${u.status}).`);
  return `${out.join('\n')}\n`;
}

function cell(text: string): string {
  return text
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/[\r\n]+/g, ' ')
    .replace(/[<>]/g, (c) => (c === '<' ? '&lt;' : '&gt;'));
}

/** The JSON form (`credentials` of mftops.status and mftops.drift). */
export function credentialSectionJson(section: CredentialSection): Record<string, unknown> {
  if (!section.ok) return { ok: false, error: section.error };
  const { report } = section;
  return {
    ok: true,
    now: report.now.toISOString(),
    withinDays: report.withinDays,
    counted: { ...report.counted },
    unavailable: section.unavailable.map((u) => ({ kind: u.kind, status: u.status })),
    items: report.items.map((s) => {
      const c = s.credential;
      const e = c.expiry;
      return {
        kind: c.kind,
        id: c.id,
        name: c.name,
        state: s.state,
        expires: e.kind === 'at' ? e.at.toISOString() : null,
        ...withDefined({
          daysLeft: s.daysLeft,
          expiryText: e.kind === 'unreadable' ? e.text : undefined,
          fingerprint: c.fingerprint,
          keyId: c.keyId,
          subject: c.subject,
          issuer: c.issuer,
        }),
        users: s.users.map((u) => ({ type: u.type, id: u.id, name: u.name, field: u.field })),
      };
    }),
  };
}
