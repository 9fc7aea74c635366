import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, fchmodSync, fsyncSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { parseAllDocuments } from 'yaml';
import { documentIndexAt } from '../adopt/edit-manifest-text.js';
import { planAdoption } from '../adopt/plan-adoption.js';
import type { AdoptionInput } from '../adopt/plan-adoption.js';
import type { AdoptionOutcome } from '../adopt/model.js';
import { isRecord } from '../is-record.js';
import { compareText } from '../order.js';
import type { MftopsConfig } from '../config/model.js';
import type { UnmanagedObject } from '../drift/model.js';
import { withDefined } from '../with-defined.js';
import type { ImportedManifest } from '../import/model.js';
import { createSecretNamer, finishManifest } from '../import/to-manifest.js';
import type { SecretNamer } from '../import/to-manifest.js';
import { KINDS } from '../kinds/registry.js';
import type { ManifestDraft } from '../kinds/kind-import.js';
import { editManifestText } from '../adopt/edit-manifest-text.js';
import { clearAcknowledgements } from '../adopt/clear-acknowledgements.js';
import type { AdoptedForAcknowledgement } from '../adopt/clear-acknowledgements.js';
import type { AdoptionAcknowledgements, AdoptionRefusal } from '../adopt/model.js';
import type { DriftReport } from '../drift/model.js';
import { ruleCovers } from '../drift/acknowledge.js';
import type { LiveState } from '../live/model.js';
import { schemaKeyOrder } from '../manifest/canonical-form.js';
import { formatAddress } from '../kinds/address.js';
import { MANIFEST_KINDS } from '../manifest/types.js';
import { parseManifestFile } from '../manifest/parse.js';
import { validateParsedFiles } from '../manifest/validate.js';
import type { ResourceKind } from '../plan/model.js';
import type { AdoptionFileResult, AdoptionReport } from '../adopt/model.js';
import { MftopsError, systemError } from '../errors.js';
import { planImportFiles, writeImportFiles } from '../import/write-files.js';
import type { FileToWrite } from '../import/write-files.js';
import type { DiagnosticsReport } from '../render/diagnostics.js';
import type { AppContext } from './context.js';
import { detectEnvironmentDrift } from './drift.js';
import { manifestEnvironmentOf } from './environment.js';
import type { ReadPrelude } from './environment.js';
import type { DriftOptions } from './drift.js';
import { firstManifestsFolder } from './import.js';

export interface AdoptDriftOptions extends Omit<DriftOptions, 'reportFile'> {
  /** The drifted or unmanaged objects to adopt (`Kind/name`); empty: every one the report lists. */
  readonly addresses: readonly string[];
  /** Compute and show the changes (a unified diff per file), write nothing. */
  readonly dryRun: boolean;
  /**
   * Also edit manifests that other environments load (a shared manifests folder, documents not
   * limited by `metadata.environments`): the change then reaches them too. Without it such an
   * object is refused, naming the environments.
   */
  readonly shared?: boolean;
}

/**
 * - `invalid`: the manifests (or names the servers do not know) have errors: nothing adopted.
 * - `adopted`: what was (or, `dryRun`, would be) written, file by file, and what was refused.
 */
export type AdoptDriftResult =
  | { readonly status: 'invalid'; readonly diagnostics: DiagnosticsReport }
  | { readonly status: 'adopted'; readonly report: AdoptionReport; readonly diagnostics: DiagnosticsReport };

/**
 * `mftops drift --adopt`: the drift of the environment (read-only clients, as `drift`), then the
 * manifests rewritten to say what the servers have for the objects asked for. Every edit of every
 * file is computed (and checked by the editor) before the first file is written; each file is then
 * staged beside its target and renamed into place, keeping its mode, so a failure leaves every file
 * as it was. Only manifest files are written, never a server.
 */
export async function adoptDrift(options: AdoptDriftOptions, ctx: AppContext): Promise<AdoptDriftResult> {
  // Named by its address, an acknowledged object is adopted: its differences must be in the report.
  const detected = await detectEnvironmentDrift({ ...options, ...(options.addresses.length > 0 ? { unacknowledged: options.addresses } : {}) }, ctx);
  if (detected.status === 'invalid') return detected;
  const { report, live, diagnostics, prelude } = detected;
  const manifests = prelude.manifests.manifests;
  const texts = new Map<string, string>();
  for (const file of new Set(manifests.map((m) => m.source.file))) texts.set(file, readUnchanged(file, prelude.manifests.fileHashes.get(file), ctx.cwd));
  const namer = createSecretNamer();
  // New manifests go to the environment's first manifests folder: when another environment loads
  // that folder too, they say which environment they are for, or its next plan would create them there.
  const newFolderSharers = (): string[] =>
    environmentsSharing(join(firstManifestsFolder(prelude.config, prelude.env), 'new.yaml'), undefined, prelude.config, prelude.env.name);
  const forThisEnvironment = (m: ImportedManifest | undefined, sharers: readonly string[]): ImportedManifest | undefined =>
    m === undefined || sharers.length === 0
      ? m
      : { ...m, document: { ...m.document, metadata: { ...(m.document.metadata as object), environments: [prelude.env.name] } } };
  const converted = new Map<string, ImportedManifest | undefined>();
  const liveManifestOf = liveManifestReader(live, namer);
  const input: AdoptionInput = {
    report,
    manifests,
    texts,
    live,
    addresses: options.addresses,
    cwd: ctx.cwd,
    newManifest: (object) => {
      if (!converted.has(object.address)) converted.set(object.address, forThisEnvironment(liveManifestOf(object), newFolderSharers()));
      return converted.get(object.address);
    },
    placeholders: () => namer.list().map((p) => `\${env:${p.variable}}`),
    ...(options.shared === true ? {} : { sharedWith: (file: string, raw: unknown) => environmentsSharing(file, raw, prelude.config, prelude.env.name) }),
    keyOrder: schemaKeyOrder,
  };
  const outcome = checkedAdoption(input, prelude, ctx);

  const show = (file: string) => shownPath(file, ctx.cwd);
  const files: AdoptionFileResult[] = outcome.files.map((f) => ({
    path: show(f.file),
    action: f.after === undefined ? 'deleted' : 'edited',
    objects: f.objects.map((o) => ({ address: o.address, outcome: o.outcome, paths: o.paths, ...(o.lastChange ? { lastChange: o.lastChange } : {}) })),
    diff: unifiedDiff(show(f.file), f.before, f.after ?? ''),
  }));
  const newFiles =
    outcome.created.length === 0
      ? []
      : freeNames(
          planImportFiles(
            outcome.created.map((c) => c.manifest),
            firstManifestsFolder(prelude.config, prelude.env),
          ),
        );
  newFiles.forEach((f, i) => {
    const c = outcome.created[i]!;
    files.push({
      path: show(f.path),
      action: 'created',
      objects: [{ address: c.address, outcome: 'created', paths: [], ...(c.lastChange ? { lastChange: c.lastChange } : {}) }],
      diff: unifiedDiff(show(f.path), '', f.text),
    });
  });
  const acknowledgements = acknowledgementsOf(outcome, report, prelude, options.addresses.length > 0, ctx.cwd);
  const edited: { file: string; after?: string }[] = [...outcome.files];
  if (acknowledgements.config !== undefined) {
    const { file, before, after } = acknowledgements.config;
    edited.push({ file, after });
    files.push({ path: show(file), action: 'edited', objects: [], diff: unifiedDiff(show(file), before, after) });
  }
  if (!options.dryRun) writeAll(edited, newFiles);
  const refused = [...outcome.refused, ...acknowledgements.refused].sort(
    (a, b) => compareText(a.address, b.address) || compareText(a.path ?? '', b.path ?? ''),
  );
  return {
    status: 'adopted',
    report: {
      environment: prelude.env.name,
      dryRun: options.dryRun,
      files,
      refused,
      inSync: outcome.inSync,
      secrets: namer.list(),
      audit: report.audit,
      ...withDefined({ acknowledgements: acknowledgements.report }),
    },
    diagnostics,
  };
}

/**
 * The acknowledgements (`drift.ignore`) adoption spends, and mftops.yaml with them removed (when
 * some are): computed with the manifests' edits, written in the same all-or-nothing step. Without
 * addresses, the objects whose acknowledged differences were left alone.
 */
function acknowledgementsOf(
  outcome: AdoptionOutcome,
  report: DriftReport,
  prelude: Extract<ReadPrelude, { status: 'ready' }>,
  named: boolean,
  cwd: string,
): { report?: AdoptionAcknowledgements; config?: { file: string; before: string; after: string }; refused: AdoptionRefusal[] } {
  const leftAlone = named ? [] : [...new Set(report.acknowledged.map((a) => a.address))].sort(compareText);
  const rules = prelude.env.drift?.ignore ?? [];
  const adopted = adoptedObjects(outcome, report);
  const none = { cleared: [], kept: [] };
  const configFile = prelude.config.file;
  const text = rules.length === 0 || adopted.length === 0 ? undefined : readUnchanged(configFile, prelude.config.sha256, cwd);
  const clearing = text === undefined ? { ...none, edits: [] } : clearAcknowledgements(rules, adopted, prelude.env.name, text, ruleCovers);
  const summary = (cleared: AdoptionAcknowledgements['cleared'], kept: AdoptionAcknowledgements['kept']): AdoptionAcknowledgements | undefined =>
    cleared.length + kept.length + leftAlone.length === 0 ? undefined : { cleared, kept, leftAlone };
  if (text === undefined || clearing.edits.length === 0) return withDefined({ report: summary(clearing.cleared, clearing.kept), refused: [] });
  const after = editManifestText(text, clearing.edits);
  if (!after.ok) {
    // The manifests are still adopted; the rule stays, and the run says so (exit 1).
    const refused = clearing.cleared.map(
      (c): AdoptionRefusal => ({
        address: c.object,
        path: 'drift.ignore',
        why: 'unsafe',
        reason: `its acknowledgement at ${c.where} could not be removed from ${shownPath(configFile, cwd)} (${after.problem}): remove it by hand`,
      }),
    );
    return withDefined({ report: summary([], clearing.kept), refused });
  }
  return withDefined({ report: summary(clearing.cleared, clearing.kept), config: { file: configFile, before: text, after: after.text }, refused: [] });
}

/** Each object adoption writes, with every address it answers to and the drift paths taken (less those refused). */
function adoptedObjects(outcome: AdoptionOutcome, report: DriftReport): AdoptedForAcknowledgement[] {
  const addressesOf = (address: string): string[] => {
    const change = report.plan.changes.find((c) => c.address === address);
    return change === undefined ? [address] : [address, ...KINDS[change.kind].aliasesOf(change)];
  };
  const refusedPaths = new Set(outcome.refused.map((r) => `${r.address}\n${r.path ?? ''}`));
  const out: AdoptedForAcknowledgement[] = [];
  for (const f of outcome.files)
    for (const o of f.objects) {
      const drifted = report.drifted.find((d) => d.address === o.address);
      if (o.outcome === 'removed' || drifted === undefined) {
        out.push({ address: o.address, addresses: addressesOf(o.address), paths: 'whole' });
        continue;
      }
      const all = [...drifted.fields.map((x) => x.path), ...drifted.entries.map((x) => x.path)];
      const refused = [
        ...new Set([
          ...all.filter((p) => refusedPaths.has(`${o.address}\n${p}`)),
          ...outcome.refused.filter((r) => r.address === o.address && r.path !== undefined).map((r) => r.path!),
        ]),
      ];
      out.push({ address: o.address, addresses: addressesOf(o.address), paths: all.filter((p) => !refusedPaths.has(`${o.address}\n${p}`)), refused });
    }
  for (const c of outcome.created) out.push({ address: c.address, addresses: addressesOf(c.address), paths: 'whole' });
  return out;
}

/**
 * The adoption, its edited manifests loaded as plan will load them (schema, rules, variables,
 * patches): an object whose edited document is not valid is not adopted (the diagnostic says
 * why) and the rest computed again, so what is written always loads.
 */
function checkedAdoption(input: AdoptionInput, prelude: Extract<ReadPrelude, { status: 'ready' }>, ctx: AppContext): AdoptionOutcome {
  const exclude = new Map<string, string>();
  for (;;) {
    const outcome = planAdoption({ ...input, exclude });
    const edited = new Map(outcome.files.map((f) => [f.file, f]));
    const parsed = prelude.manifests.files
      .filter((file) => edited.get(file)?.after !== undefined || !edited.has(file))
      .map((file) => parseManifestFile(file, edited.get(file)?.after ?? input.texts.get(file) ?? readFileSync(file)));
    // New manifests too: written as import writes them, each in a file of its own.
    const created = new Map<string, string>();
    (outcome.created.length === 0
      ? []
      : planImportFiles(
          outcome.created.map((c) => c.manifest),
          firstManifestsFolder(prelude.config, prelude.env),
        )
    ).forEach((f, i) => {
      const path = `${f.path}.adopted`;
      created.set(path, outcome.created[i]!.address);
      parsed.push(parseManifestFile(path, f.text));
    });
    const checked = validateParsedFiles(parsed, undefined, manifestEnvironmentOf(prelude.config, prelude.env));
    const errors = checked.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length === 0) return outcome;
    const before = exclude.size;
    for (const d of errors) {
      const createdAddress = d.file === undefined ? undefined : created.get(d.file);
      if (createdAddress !== undefined) {
        if (!exclude.has(createdAddress)) exclude.set(createdAddress, `its new manifest would not load: ${d.code} ${d.summary}`);
        continue;
      }
      const file = d.file === undefined ? undefined : edited.get(d.file);
      if (file === undefined || file.after === undefined) continue;
      const culprit = objectAt(
        file.after,
        d.line,
        file.objects.map((o) => o.address),
      );
      const reason = `the edited manifest would not load: ${d.code} ${d.summary} (${shownPath(file.file, ctx.cwd)}${d.line !== undefined ? `:${d.line}` : ''})`;
      for (const address of culprit === undefined ? file.objects.map((o) => o.address) : [culprit]) if (!exclude.has(address)) exclude.set(address, reason);
    }
    // Errors that no adopted object explains were there before adoption: not adoption's to judge.
    if (exclude.size === before) return outcome;
  }
}

/** The adopted object declared by the document at `line` of `text`, if one of `addresses`. */
function objectAt(text: string, line: number | undefined, addresses: readonly string[]): string | undefined {
  if (line === undefined) return undefined;
  const index = documentIndexAt(text, line);
  const doc = index === undefined ? undefined : parseAllDocuments(text)[index];
  const value: unknown = doc !== undefined && 'toJS' in doc ? doc.toJS() : undefined;
  if (!isRecord(value) || typeof value.kind !== 'string' || !isRecord(value.metadata) || typeof value.metadata.name !== 'string') return undefined;
  const kind = value.kind;
  const address = (MANIFEST_KINDS as readonly string[]).includes(kind) ? formatAddress(kind as ResourceKind, value.metadata.name) : undefined;
  return addresses.find((a) => a === address);
}

/**
 * An object created on the server as `mftops import` writes it, by its kind's import half (secrets
 * as `${env:}` placeholders `namer` lists; the caller converts each object once, so a placeholder
 * is named once). Each kind's reader is made once, and only for a kind an object has.
 */
function liveManifestReader(live: LiveState, namer: SecretNamer): (object: UnmanagedObject) => ImportedManifest | undefined {
  const readers = new Map<ResourceKind, (object: UnmanagedObject) => ManifestDraft | undefined>();
  return (object) => {
    let read = readers.get(object.kind);
    if (read === undefined) {
      read = KINDS[object.kind].importer.liveDrafts(live, namer);
      readers.set(object.kind, read);
    }
    const draft = read(object);
    return draft === undefined ? undefined : finishManifest(draft);
  };
}

/** The file's text, refused when it changed since the manifests were read (someone is editing it). */
function readUnchanged(file: string, hash: string | undefined, cwd: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    throw systemError(`cannot read ${shownPath(file, cwd)}`, err);
  }
  if (hash !== undefined && `sha256:${createHash('sha256').update(bytes).digest('hex')}` !== hash)
    throw new MftopsError(`${shownPath(file, cwd)} changed while drift was read; nothing was written: run drift --adopt again`);
  return bytes.toString('utf8');
}

/** New files never replace one: a name taken gets `-2`, `-3`… as import numbers its own. */
function freeNames<F extends FileToWrite>(files: readonly F[]): F[] {
  const taken = new Set<string>();
  return files.map((f) => {
    let path = f.path;
    let relPath = f.relPath;
    for (let n = 2; existsSync(path) || taken.has(path); n++) {
      path = f.path.replace(/\.yaml$/, `-${n}.yaml`);
      relPath = f.relPath.replace(/\.yaml$/, `-${n}.yaml`);
    }
    taken.add(path);
    return { ...f, path, relPath };
  });
}

/**
 * Every edited file staged beside its target (its mode kept), then the new files written (all or
 * none), then the staged files renamed into place and the emptied ones removed. A failure while
 * staging or writing leaves every file as it was.
 */
function writeAll(edited: readonly { file: string; after?: string }[], created: readonly FileToWrite[]): void {
  const staged: { readonly tmp: string; readonly file: string }[] = [];
  try {
    for (const f of edited) {
      if (f.after === undefined) continue;
      // A manifest that is a symbolic link: the file it points to is the one edited (the link stays).
      const target = realpathSync(f.file);
      const tmp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
      staged.push({ tmp, file: target });
      const mode = statSync(target).mode & 0o7777;
      const fd = openSync(tmp, 'wx', mode);
      try {
        fchmodSync(fd, mode); // the umask narrowed the mode openSync gave it
        writeFileSync(fd, f.after);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
    writeImportFiles(created, { force: false });
  } catch (err) {
    for (const { tmp } of staged) rmSync(tmp, { force: true });
    if (err instanceof MftopsError) throw err;
    throw systemError('cannot write the adopted manifests; nothing was written', err);
  }
  for (const { tmp, file } of staged) renameSync(tmp, file);
  for (const f of edited) if (f.after === undefined) rmSync(f.file, { force: true });
}

/** A git-style unified diff (without the `Index:`/`===` lines the `diff` package starts with). */
function unifiedDiff(path: string, before: string, after: string): string {
  const patch = createTwoFilesPatch(before === '' ? '/dev/null' : `a/${path}`, after === '' ? '/dev/null' : `b/${path}`, before, after, undefined, undefined, {
    context: 3,
  });
  return patch.replace(/^(Index: [^\n]*\n)?=+\n/, '');
}

function shownPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : path;
}

/**
 * The other environments that load `file`'s document `raw`: the file is one of their manifests or
 * inside one of their folders, and the document's `metadata.environments` (absent: every
 * environment) names them.
 */
function environmentsSharing(file: string, raw: unknown, config: MftopsConfig, own: string): string[] {
  const metadata = isRecord(raw) && isRecord(raw.metadata) ? raw.metadata : undefined;
  const limited = Array.isArray(metadata?.environments) ? metadata.environments.filter((e): e is string => typeof e === 'string') : undefined;
  const out: string[] = [];
  for (const [name, env] of config.environments) {
    if (name === own || (limited !== undefined && !limited.includes(name))) continue;
    if (env.manifests.some((m) => file === m || isInside(file, m))) out.push(name);
  }
  return out.sort(compareText);
}

function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}
