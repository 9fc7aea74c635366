import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what the last full collection kept, in percent
 * (V8's `--heap-growing-percent`). V8's own factor reaches 4× on a machine with a large heap
 * limit, so a plan of 100,000 objects, which keeps ~0.5 GB, peaked past 1 GB of garbage not yet
 * collected (issue 29); at 1.2× the peak follows what is kept.
 */
export const HEAP_GROWING_PERCENT = 20;

/**
 * The manifests' total from which the growth is limited. Below it the peak is far from 1 GB
 * (30,000 objects, 20 MB of manifests, peaked at 368 MB limited) and the limit only costs time:
 * at 13,000 objects (7 MB) it added ~0.3 s of wall and ~0.5 s of CPU (more, smaller collections).
 */
export const LIMIT_HEAP_FROM_BYTES = 32 * 1024 * 1024;

/** Whether this process may still limit its heap's growth (the CLI allowed it; not done yet). */
let limitAllowed = false;

/**
 * Let this process limit its heap's growth once its input proves large (`noteInputBytes`).
 * Process-wide, so only the CLI's own process calls it (never the library, a test runner or the
 * Action's host); a value given to node itself is kept (in its arguments: node refuses this flag
 * in NODE_OPTIONS).
 */
export function allowHeapGrowthLimit(nodeArgs: readonly string[] = process.execArgv): void {
  limitAllowed = !nodeArgs.some((a) => /heap[-_]growing[-_]percent/.test(a));
}

/**
 * The manifests about to be read hold `bytes`: from `LIMIT_HEAP_FROM_BYTES` on, and when the CLI
 * allowed it, the heap's growth is limited from here on (V8 reads the flag at each collection).
 */
export function noteInputBytes(bytes: number): void {
  if (!limitAllowed || bytes < LIMIT_HEAP_FROM_BYTES) return;
  limitAllowed = false;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
