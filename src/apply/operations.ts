/**
 * The client calls of apply live with each kind (`src/kinds/<kind>/io.ts`: how each step is sent,
 * and how the object is read back by its identity when a write's outcome is unknown); nothing in
 * src/apply calls a write method. The types they share are in `src/kinds/kind-io.ts`.
 */
export { StepError } from '../kinds/kind-io.js';
export type { AutomationWriter, Confirmation, StepContext, TransferWriter, WriteClients } from '../kinds/kind-io.js';
