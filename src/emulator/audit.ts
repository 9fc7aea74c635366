import type { FieldError } from './http.js';
import type { AuditRecord, AutomationState } from './state.js';

/** Who wrote and what, for one audit record. */
export interface AuditEvent {
  readonly username: string;
  readonly ip: string;
  readonly action: string;
  readonly targetType: string;
  readonly targetId: string;
  readonly taskName?: string;
  readonly time: number;
}

export function recordAudit(state: AutomationState, e: AuditEvent): void {
  const last = state.audit[state.audit.length - 1];
  state.audit.push({
    LogID: (last?.LogID ?? 0) + 1,
    LogTime: new Date(e.time).toISOString(),
    Username: e.username,
    IPAddress: e.ip,
    ClientIP: e.ip,
    Action: e.action,
    TargetType: e.targetType,
    TargetID: e.targetId,
    TaskName: e.taskName ?? '',
    Status: 'Success',
    StatusCode: 0,
    StatusMsg: '',
    Node: 0,
    AgentBrand: 'REST API',
  });
}

type FieldKind = 'number' | 'time' | 'text';
const AUDIT_FIELDS: Readonly<Record<keyof AuditRecord, FieldKind>> = {
  LogID: 'number',
  LogTime: 'time',
  Username: 'text',
  IPAddress: 'text',
  ClientIP: 'text',
  Action: 'text',
  TargetType: 'text',
  TargetID: 'text',
  TaskName: 'text',
  Status: 'text',
  StatusCode: 'number',
  StatusMsg: 'text',
  Node: 'number',
  AgentBrand: 'text',
};

/** RSQL comparison operators the emulator understands. */
type Operator = '==' | '!=' | '=ge=' | '=le=' | '=gt=' | '=lt=';

interface Clause {
  readonly field: keyof AuditRecord;
  readonly op: Operator;
  readonly value: string;
}

const CLAUSE = /^\s*([A-Za-z]+)\s*(==|!=|=ge=|=le=|=gt=|=lt=)\s*(.*?)\s*$/;

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let quote: string | undefined;
  let cur = '';
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = undefined;
      cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      cur += ch;
    } else if (ch === ';') {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts;
}

function unquote(v: string): string {
  if (v.length >= 2 && (v[0] === '"' || v[0] === "'") && v[v.length - 1] === v[0]) return v.slice(1, -1);
  return v;
}

export type AuditQuery = {
  readonly clauses: readonly Clause[];
  readonly orderBy: keyof AuditRecord;
  readonly descending: boolean;
  readonly maxCount: number | undefined;
};

/** Read `{predicate, orderBy, maxCount}`; RSQL clauses joined by `;` (AND). */
export function parseAuditQuery(body: unknown): { ok: true; value: AuditQuery } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const clauses: Clause[] = [];
  const predicate = b.predicate ?? '';
  if (typeof predicate !== 'string') errors.push({ field: 'predicate', rejected: String(predicate), message: 'must be an RSQL string' });
  else if (predicate.trim() !== '') {
    for (const part of splitTopLevel(predicate)) {
      const m = CLAUSE.exec(part);
      if (!m) {
        errors.push({ field: 'predicate', rejected: part, message: 'a clause is FIELD==value, FIELD=ge=value or FIELD=le=value, joined by ;' });
        continue;
      }
      const field = m[1]! as keyof AuditRecord;
      const value = unquote(m[3]!);
      if (!(field in AUDIT_FIELDS)) {
        errors.push({ field: 'predicate', rejected: m[1]!, message: `unknown field; one of ${Object.keys(AUDIT_FIELDS).join(', ')}` });
        continue;
      }
      const kind = AUDIT_FIELDS[field];
      if (kind === 'time' && Number.isNaN(Date.parse(value))) errors.push({ field: 'predicate', rejected: value, message: `${field} takes an ISO date-time` });
      if (kind === 'number' && !/^-?[0-9]+$/.test(value)) errors.push({ field: 'predicate', rejected: value, message: `${field} takes an integer` });
      clauses.push({ field, op: m[2] as Operator, value });
    }
  }
  let orderBy: keyof AuditRecord = 'LogID';
  let descending = false;
  if (b.orderBy !== undefined && b.orderBy !== '') {
    const raw = typeof b.orderBy === 'string' ? b.orderBy.trim() : '';
    const name = raw.startsWith('!') ? raw.slice(1) : raw;
    if (!(name in AUDIT_FIELDS))
      errors.push({ field: 'orderBy', rejected: String(b.orderBy), message: 'must be a field name, with a leading ! for descending' });
    else {
      orderBy = name as keyof AuditRecord;
      descending = raw.startsWith('!');
    }
  }
  let maxCount: number | undefined;
  if (b.maxCount !== undefined) {
    if (typeof b.maxCount !== 'number' || !Number.isInteger(b.maxCount) || b.maxCount < 1)
      errors.push({ field: 'maxCount', rejected: String(b.maxCount), message: 'must be a positive integer' });
    else maxCount = b.maxCount;
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: { clauses, orderBy, descending, maxCount } };
}

function compare(kind: FieldKind, a: string | number, b: string): number {
  switch (kind) {
    case 'number':
      return Number(a) - Number(b);
    case 'time':
      return Date.parse(String(a)) - Date.parse(b);
    case 'text': {
      const x = String(a).toLowerCase();
      const y = b.toLowerCase();
      return x < y ? -1 : x > y ? 1 : 0;
    }
    default: {
      const never: never = kind;
      throw new Error(`unknown kind ${String(never)}`);
    }
  }
}

function matches(rec: AuditRecord, c: Clause): boolean {
  const kind = AUDIT_FIELDS[c.field];
  const v = rec[c.field];
  if ((c.op === '==' || c.op === '!=') && kind === 'text' && c.value.includes('*')) {
    const re = new RegExp(
      `^${c.value
        .split('*')
        .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
      'is',
    );
    return re.test(String(v)) === (c.op === '==');
  }
  const d = compare(kind, v, c.value);
  switch (c.op) {
    case '==':
      return d === 0;
    case '!=':
      return d !== 0;
    case '=ge=':
      return d >= 0;
    case '=le=':
      return d <= 0;
    case '=gt=':
      return d > 0;
    case '=lt=':
      return d < 0;
    default: {
      const never: never = c.op;
      throw new Error(`unknown operator ${String(never)}`);
    }
  }
}

export function runAuditQuery(records: readonly AuditRecord[], q: AuditQuery): AuditRecord[] {
  const kind = AUDIT_FIELDS[q.orderBy];
  const hits = records.filter((r) => q.clauses.every((c) => matches(r, c)));
  hits.sort((a, b) => {
    const d = compare(kind, a[q.orderBy], String(b[q.orderBy])) || a.LogID - b.LogID;
    return q.descending ? -d : d;
  });
  return q.maxCount === undefined ? hits : hits.slice(0, q.maxCount);
}
