import { DRIFT_FORMAT_VERSION } from '../drift/model.js';

/**
 * The one JSON contract of `--format json` (and of `drift --report FILE`): every document mftops
 * prints is one object whose first two keys are
 * - `formatVersion`: the version of that kind's shape, counted per kind. It is bumped only by an
 *   incompatible change (a key removed or renamed, a type or meaning changed); adding a key is
 *   not one. Plan and drift kept the versions they had;
 * - `kind`: what the document is, `mftops.<command>` (`mftops.plan`, `mftops.snapshot.list`),
 *   or `mftops.error` when the command failed without a result of its own.
 *
 * Each kind is described by `schemas/output-<kind without "mftops.", dots as dashes>.schema.json`.
 */
export const JSON_OUTPUT_VERSIONS = {
  'mftops.validate': 1,
  'mftops.plan': 2,
  'mftops.apply': 1,
  'mftops.drift': DRIFT_FORMAT_VERSION,
  'mftops.import': 1,
  'mftops.status': 1,
  'mftops.snapshot.save': 1,
  'mftops.snapshot.list': 1,
  'mftops.snapshot.verify': 1,
  'mftops.snapshot.diff': 1,
  'mftops.snapshot.restore': 1,
  'mftops.fmt': 1,
  'mftops.init': 1,
  'mftops.explain': 1,
  'mftops.diff-env': 1,
  'mftops.scheduler.start': 1,
  'mftops.error': 1,
} as const;

export type JsonOutputKind = keyof typeof JSON_OUTPUT_VERSIONS;

/** The two keys every document starts with. */
export interface JsonEnvelope<K extends JsonOutputKind> {
  readonly formatVersion: (typeof JSON_OUTPUT_VERSIONS)[K];
  readonly kind: K;
}

export function envelopeOf<K extends JsonOutputKind>(kind: K): JsonEnvelope<K> {
  return { formatVersion: JSON_OUTPUT_VERSIONS[kind], kind };
}

/** The document of `kind`: the envelope, then the body's keys in their order; two-space indented. */
export function renderJsonOutput(kind: JsonOutputKind, body: object): string {
  return `${JSON.stringify({ ...envelopeOf(kind), ...body }, null, 2)}\n`;
}

/** `output-plan.schema.json`, `output-snapshot-list.schema.json`: the schema file of a kind. */
export function outputSchemaFile(kind: JsonOutputKind): string {
  return `output-${kind.slice('mftops.'.length).replace(/\./g, '-')}.schema.json`;
}
