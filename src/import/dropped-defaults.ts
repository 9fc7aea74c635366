/** The register moved to the Task kind, whose import it is (src/kinds/task/dropped-defaults.ts). */
export { DROPPED_DEFAULTS, isDroppedDefault } from '../kinds/task/dropped-defaults.js';
export type { DroppedDefault } from '../kinds/task/dropped-defaults.js';
