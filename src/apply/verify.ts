import { CreatedIds } from '../kinds/created-ids.js';
import { KIND_IO } from '../kinds/io-registry.js';
import type { KindIo, StepContext, WriteClients } from '../kinds/kind-io.js';
import { mapWithConcurrency } from '../map-with-concurrency.js';
import type { Change, Plan, ResourceKind } from '../plan/model.js';
import { describeReason } from '../resources/reasons.js';
import type { ChangeResult, Unconverged } from './model.js';

/**
 * After the writes: did the servers end where the plan said? Two ways, see `VerifyMode`.
 */

/**
 * Pure: the applied changes the re-plan does not show in sync. An address must be `no-op` or
 * `blocked` in the re-plan; an applied delete must be gone from it (or `no-op`); any other
 * applied address missing from the re-plan could not be checked and is listed as `missing`.
 * Addresses compare without regard to case (both servers fold case).
 */
export function findUnconverged(applied: readonly Change[], replan: Plan): Unconverged[] {
  const byAddress = new Map(replan.changes.map((c) => [c.address.toLowerCase(), c]));
  const out: Unconverged[] = [];
  for (const a of applied) {
    const now = byAddress.get(a.address.toLowerCase());
    if (!now) {
      if (a.action !== 'delete')
        out.push({ address: a.address, action: 'missing', reason: 'not in the re-plan: the manifests or the server no longer have it' });
      continue;
    }
    if (now.action === 'no-op' || now.action === 'blocked') continue;
    out.push({ address: a.address, action: now.action, ...(now.reason !== undefined ? { reason: describeReason(now.reason) } : {}) });
  }
  return out;
}

/**
 * The other way, for a saved plan whose manifests changed since: each applied change's requests
 * are checked against the objects read back by identity (the same reads as after an unknown
 * outcome). Secret values are not compared (they read back suppressed).
 */
export async function verifyPayloads(
  applied: readonly { change: Change; result: ChangeResult }[],
  clients: WriteClients,
  parallelism: number,
): Promise<Unconverged[]> {
  const ctx: StepContext = { clients, created: new CreatedIds() };
  for (const { change, result } of applied) {
    const id = result.ids !== undefined ? KIND_IO[change.kind].idIn(result.ids) : undefined;
    if (id !== undefined) ctx.created.record(change.address, id);
  }
  const found = await mapWithConcurrency(applied, parallelism, ({ change, result }) => verifyChange(KIND_IO[change.kind], change, result, ctx));
  return found.filter((u): u is Unconverged => u !== undefined);
}

async function verifyChange<K extends ResourceKind>(io: KindIo<K>, change: Change, result: ChangeResult, ctx: StepContext): Promise<Unconverged | undefined> {
  for (const step of io.verifySteps(change, result.ids)) {
    const found = await io.confirmStep(step, ctx);
    if (found.kind !== 'done')
      return {
        address: change.address,
        action: change.action,
        reason: found.kind === 'fail' ? found.message : `the server does not hold what was sent (${step.op})`,
      };
  }
  return undefined;
}
