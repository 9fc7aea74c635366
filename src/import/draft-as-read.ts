import { EVERY_KIND, KINDS } from '../kinds/registry.js';
import { referenceLookalike } from '../reference-lookalike.js';
import type { ImportedManifest, ImportKind, ImportResult, ImportSelection, ImportSource } from './model.js';
import { finishManifest, createSecretNamer } from './to-manifest.js';
import { planImportPaths } from './write-files.js';
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
 * has arrived, and its files are handed to `stage`. Each kind's importer reads only its own part of
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
): { arrive(kind: ImportKind, part: Partial<ImportSource>): void; result(): DraftedImport | undefined } {
  const secrets = createSecretNamer();
  const order = EVERY_KIND.filter((k) => selection.kinds.includes(k));
  const source = Object.assign({ origin }, ...EVERY_KIND.map((kind) => KINDS[kind].importer.nothingRead)) as ImportSource;
  const arrived = new Set<ImportKind>();
  const shares: KindShare[] = [];
  let placeholders = new Set<string>();
  const draftNext = (): void => {
    while (shares.length < order.length && arrived.has(order[shares.length]!)) {
      const kind = order[shares.length]!;
      const made = KINDS[kind].importer.draft(source, selection, secrets);
      const drafted = made.drafts.map(finishManifest);
      const list = secrets.list();
      if (list.length !== placeholders.size) placeholders = new Set(list.map((p) => `\${env:${p.variable}}`));
      const lookalikes: string[] = [];
      const manifests = drafted.filter((m) => {
        const why = referenceLookalike(m.document.spec, placeholders);
        if (why !== undefined) lookalikes.push(`${m.address} not imported: ${why}`);
        return why === undefined;
      });
      const paths = planImportPaths(manifests, outDir);
      shares.push({ kind, manifests, paths, skipped: made.skipped, lookalikes, placeholders: list.length });
      stage(paths);
    }
  };
  return {
    arrive(kind, part) {
      Object.assign(source, part);
      arrived.add(kind);
      draftNext();
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
