import { findCredentialUsers, standingOf } from '../credentials/expiry-report.js';
import type { Credential, CredentialKind, ExpiryState } from '../credentials/model.js';
import type { Host } from '../services/automation/types.js';
import { withDefined } from '../with-defined.js';
import { compileExpression, referencedIdentifiers } from '../manifest/policy-expression.js';
import type { PolicyManifest } from '../manifest/types.js';

/**
 * What the policy variables `keys` and `usedKeys` are made from: the automation server's keys and
 * certificates, its hosts (a step takes its host's default key), and the clock. Read by the plan
 * only when a policy names either variable.
 */
export interface PolicyKeyInput {
  readonly credentials: readonly Credential[];
  readonly hosts: readonly Host[];
  readonly now: Date;
}

/**
 * One entry of `keys` / `usedKeys`. `state` is `expired`, `valid`, `never` or `unreadable` (a rule
 * says itself what "soon" is, with `daysLeft`). `expires` (ISO instant) and `daysLeft` (whole days, rounded
 * down, negative once expired) are absent for a key that never expires or whose expiry cannot be
 * read (`state` says which): test them with `has(k.daysLeft)`.
 */
export interface PolicyKey {
  readonly kind: CredentialKind;
  readonly id: string;
  readonly name: string;
  readonly state: ExpiryState;
  readonly expired: boolean;
  readonly expires?: string;
  readonly daysLeft?: number;
}

/** `keys`: every key and certificate of the server, in list order (PGP, SSH, SSL). */
export function policyKeys(input: PolicyKeyInput): PolicyKey[] {
  return input.credentials.map((c) => policyKey(c, input.now));
}

/**
 * `usedKeys`: the keys and certificates `spec` (a task in manifest or wire form) uses, by the
 * rules of `findCredentialUsers`; empty for a change with no object (a delete).
 */
export function policyUsedKeys(input: PolicyKeyInput, spec: unknown): PolicyKey[] {
  if (spec === null || typeof spec !== 'object') return [];
  const users = findCredentialUsers(input.credentials, [{ ID: '', Name: '', ...(spec as Record<string, unknown>) }], input.hosts);
  return input.credentials
    .filter((c) => (users.get(`${c.kind}:${c.id.toLowerCase()}`) ?? []).some((u) => u.type === 'task'))
    .map((c) => policyKey(c, input.now));
}

function policyKey(c: Credential, now: Date): PolicyKey {
  const s = standingOf(c, now, 0);
  return {
    kind: c.kind,
    id: c.id,
    name: c.name,
    state: s.state,
    expired: s.state === 'expired',
    ...withDefined({ expires: c.expiry.kind === 'at' ? c.expiry.at.toISOString() : undefined, daysLeft: s.daysLeft }),
  };
}

/** Whether a policy names `keys` or `usedKeys`: only then does a plan read the keys and certificates. */
export function policiesReadKeys(policies: readonly PolicyManifest[]): boolean {
  return policiesNamingKeys(policies).length > 0;
}

/** The policies with a validation that names `keys` or `usedKeys`. */
export function policiesNamingKeys(policies: readonly PolicyManifest[]): PolicyManifest[] {
  return policies.filter((p) =>
    p.spec.validations.some((v) => {
      const compiled = compileExpression(v.expression);
      if (!compiled.ok) return false;
      const names = referencedIdentifiers(compiled.program);
      return names.has('keys') || names.has('usedKeys');
    }),
  );
}
