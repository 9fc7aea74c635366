import { EVERY_KIND, KINDS } from '../kinds/registry.js';
import { referenceLookalike } from '../reference-lookalike.js';
import type { ImportedManifest, ImportKind, ImportResult, ImportSelection, ImportSource } from './model.js';
import { finishManifest, createSecretNamer } from './to-manifest.js';
import { createPathPlanner } from './write-files.js';
import type { PlannedPath } from './write-files.js';

/**
 * One kind's share of an import, drafted as soon as its part was read:
 * - `manifests`: those written (judged against the placeholders made so far);
 * - `skipped`: what its importer left out; `lookalikes`: what the judgement left out;
 * - `placeholders`: how many secret placeholders existed when it was judged.
 */
interface KindShare {
  readonly kind: ImportKind;
  readonly manifests: readonly ImportedManifest[];
  readonly paths: readonly PlannedPath[];
  readonly skipped: readonly string[];
  readonly lookalikes: readonly string[];
  readonly placeholders: number;
}

/** What `createDraftAsRead` made, once every selected kind arrived, the same as `importObjects` and `planImportPaths` of the whole source. */
export interface DraftedImport {
  readonly result: ImportResult;
  readonly paths: readonly PlannedPath[];
}

/**
 * `importObjects` then `planImportPaths`, a kind at a time while the rest is read (issue 29: the
 * 10,000 task files are drafted and staged while the 2,000 folder ACL reads are in flight). Each
 * kind is drafted once it and every kind before it (manifest order, as `importObjects` drafts)
 * has arrived, and its files are handed to `stage` a part (`chunk` drafts) at a time, the event
 * loop turning between parts so that the reads in flight go on (`arrive` settles once the kinds
 * it let be drafted are). Each kind's importer reads only its own part of
 * the source, and each kind has its own folder, so a kind's drafts and paths do not depend on the
 * kinds after it; the one exception is the `${env:}` placeholders a server value may equal (see
 * `referenceLookalike`): those of every kind count. `result` returns undefined when a kind made
 * placeholders after an earlier kind was judged (today only tasks make any, and they come first):
 * the caller then discards what was staged and drafts the whole source the old way.
 */
export function createDraftAsRead(
  selection: ImportSelection,
  origin: string,
  outDir: string,
  stage: (files: readonly PlannedPath[]) => void,
  options: { readonly chunk?: number } = {},
): { arrive(kind: ImportKind, part: Partial<ImportSource>): Promise<void>; result(): DraftedImport | undefined } {
  const chunk = options.chunk ?? DRAFTS_PER_TURN;
  const secrets = createSecretNamer();
  const order = EVERY_KIND.filter((k) => selection.kinds.includes(k));
  const source = Object.assign({ origin }, ...EVERY_KIND.map((kind) => KINDS[kind].importer.nothingRead)) as ImportSource;
  const arrived = new Set<ImportKind>();
  const shares: KindShare[] = [];
  let placeholders = new Set<string>();
  const draftKind = async (kind: ImportKind): Promise<void> => {
    const made = KINDS[kind].importer.draft(source, selection, secrets);
    const list = secrets.list();
    if (list.length !== placeholders.size) placeholders = new Set(list.map((p) => `\${env:${p.variable}}`));
    const planPaths = createPathPlanner(outDir);
    const manifests: ImportedManifest[] = [];
    const paths: PlannedPath[] = [];
    const lookalikes: string[] = [];
    // A part at a time, the event loop turning between parts: the answers of the reads still in
    // flight (the folder ACLs, while the tasks are drafted) are taken and the next reads sent.
    for (let from = 0; from < made.drafts.length; from += chunk) {
      if (from > 0) await new Promise<void>((turn) => setImmediate(turn));
      const safe = made.drafts.slice(from, from + chunk).flatMap((draft) => {
        const m = finishManifest(draft);
        const why = referenceLookalike(m.document.spec, placeholders);
        if (why === undefined) return [m];
        lookalikes.push(`${m.address} not imported: ${why}`);
        return [];
      });
      const planned = planPaths(safe);
      manifests.push(...safe);
      paths.push(...planned);
      stage(planned);
    }
    shares.push({ kind, manifests, paths, skipped: made.skipped, lookalikes, placeholders: list.length });
  };
  // One kind after the other, in manifest order, each once it and every kind before it arrived.
  let drafting = Promise.resolve();
  let queued = 0;
  return {
    arrive(kind, part) {
      Object.assign(source, part);
      arrived.add(kind);
      while (queued < order.length && arrived.has(order[queued]!)) {
        const next = order[queued++]!;
        drafting = drafting.then(() => draftKind(next));
      }
      return drafting;
    },
    result() {
      if (shares.length !== order.length) throw new Error(`bug: ${order.filter((k) => !arrived.has(k)).join(', ')} never arrived`);
      const total = secrets.list().length;
      if (shares.some((s) => s.placeholders !== total)) return undefined;
      return {
        result: {
          manifests: shares.flatMap((s) => s.manifests),
          secrets: secrets.list(),
          skipped: [...shares.flatMap((s) => s.skipped), ...shares.flatMap((s) => s.lookalikes)],
        },
        paths: shares.flatMap((s) => s.paths),
      };
    },
  };
}

/** Drafts finished, checked and staged between two turns of the event loop (~20 ms of tasks on the bench machine). */
const DRAFTS_PER_TURN = 250;
