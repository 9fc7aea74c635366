import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what the last full collection kept, in percent
 * (V8's `--heap-growing-percent`). V8's own factor reaches 4× on a machine with a large heap
 * limit, so a plan of 100,000 objects, which keeps ~0.5 GB, peaked past 1 GB of garbage not yet
 * collected (issue 29); at 1.2× the peak follows what is kept.
 */
export const HEAP_GROWING_PERCENT = 20;

/**
 * Make this process collect garbage before its heap outgrows what it keeps by more than
 * `HEAP_GROWING_PERCENT`. Process-wide, so only the CLI's own process calls it (never the
 * library, a test runner or the Action's host); a value given to node itself is kept (in its
 * arguments: node refuses this flag in NODE_OPTIONS).
 */
export function limitHeapGrowth(nodeArgs: readonly string[] = process.execArgv): void {
  if (nodeArgs.some((a) => /heap[-_]growing[-_]percent/.test(a))) return;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
