import { KIND_IO } from '../kinds/io-registry.js';
import type { ImportReadContext } from '../kinds/kind-io.js';
import { EVERY_KIND, KINDS } from '../kinds/registry.js';
import { readLiveState } from '../live/read-live-state.js';
import type { AutomationReader, ProgressCallback, TransferReader } from '../live/read-live-state.js';
import { withDefined } from '../with-defined.js';
import type { ImportKind, ImportSelection, ImportSource } from './model.js';

export interface ReadImportSourceInput {
  /** Read-only views only: importing never writes to a server. */
  readonly automation?: AutomationReader;
  readonly transfer?: TransferReader;
  readonly selection: ImportSelection;
  /** For messages: where the objects come from. */
  readonly origin: string;
  readonly parallelism?: number;
  readonly progress?: ProgressCallback;
  /**
   * Called with each selected kind's part as soon as it is read (import drafts and stages it
   * while the rest is read); the source is returned once every promise it returned has settled.
   */
  readonly onPart?: (kind: ImportKind, part: Partial<ImportSource>) => Promise<void> | void;
}

/**
 * The live objects an import needs, with the fewest reads: each selected kind's
 * `KindIo.readForImport` (src/kinds/<kind>/io-import.ts), all at once; a kind not selected
 * reads nothing and has its empty part.
 */
export async function readImportSource(input: ReadImportSourceInput): Promise<ImportSource> {
  const { selection } = input;
  for (const kind of selection.kinds) {
    const { service, importer } = KINDS[kind];
    if (input[service] === undefined) throw new Error(`bug: ${importer.plural} to import but no ${service} client`);
  }
  const context: ImportReadContext = {
    ...withDefined({ automation: input.automation, transfer: input.transfer }),
    selection,
    parallelism: input.parallelism,
    readLive: (scope, prune) =>
      readLiveState({
        manifests: [],
        ...withDefined({ automation: input.automation, transfer: input.transfer, parallelism: input.parallelism, progress: input.progress }),
        scope,
        prune,
      }),
  };
  const parts = await Promise.all(
    EVERY_KIND.map((kind) => {
      if (!selection.kinds.includes(kind)) return Promise.resolve(KINDS[kind].importer.nothingRead);
      const read = KIND_IO[kind].readForImport(context);
      const { onPart } = input;
      return onPart === undefined
        ? read
        : read.then(async (part) => {
            await onPart(kind, part);
            return part;
          });
    }),
  );
  return Object.assign({ origin: input.origin }, ...parts) as ImportSource;
}
