import { KIND_IO } from '../kinds/io-registry.js';
import type { Step } from '../kinds/kind-io.js';
import type { Change, Payload } from '../plan/model.js';

export type { Step, StepOp } from '../kinds/kind-io.js';
export type { EntryRef, EntrySet } from '../kinds/folder-permissions/io.js';

/**
 * The steps of a write change, from its payload (secrets already resolved): its kind's
 * (`KindIo.planSteps`, `src/kinds/<kind>/io.ts`). A change whose data cannot be sent is a bug in
 * the plan: the error says which change.
 */
export function planSteps(change: Change, payload: Payload | undefined): Step[] {
  return KIND_IO[change.kind].planSteps(change, payload);
}
