import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layers of docs/architecture.md, held by the import graph of src/ (static imports, dynamic
 * `import()` and re-exports; `import type` is erased at run time and counted only where noted).
 */
const SRC = fileURLToPath(new URL('../src', import.meta.url));

interface Edge {
  readonly from: string;
  /** A path relative to src/ (`plan/model.ts`) or a package specifier (`node:fs`, `undici`). */
  readonly to: string;
  readonly typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const IMPORT = /^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;

const EDGES: readonly Edge[] = sourceFiles(SRC).flatMap((file) => {
  const text = readFileSync(file, 'utf8');
  const from = relative(SRC, file).split('\\').join('/');
  const out: Edge[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[2] ?? m[3]!;
    const to = spec.startsWith('.')
      ? relative(SRC, resolve(dirname(file), spec.replace(/\.js$/, '.ts')))
          .split('\\')
          .join('/')
      : spec;
    out.push({ from, to, typeOnly: m[1] !== undefined });
  }
  return out;
});

/**
 * The top folder of a path under src/, except that the kinds are three areas: their I/O half
 * (`kinds/io-registry.ts`, `kinds/kind-io.ts`, `kinds/<kind>/io.ts`, `kinds/<kind>/io-*.ts`) is
 * `kinds-io`; their types (`kinds/<kind>/model.ts`, the map of them `kinds/kind-types.ts` and what
 * they share, `kinds/model-base.ts`) are `kinds-model`, data at the bottom that the manifest
 * loader and the resources read too; the rest of `kinds/` is the pure half, `kinds`.
 */
const KINDS_IO = /^kinds\/(io-registry\.ts|kind-io\.ts|[^/]+\/io(-[^/]*)?\.ts)$/;
const KINDS_MODEL = /^kinds\/(kind-types\.ts|model-base\.ts|[^/]+\/model\.ts)$/;
const area = (path: string): string =>
  KINDS_IO.test(path) ? 'kinds-io' : KINDS_MODEL.test(path) ? 'kinds-model' : path.includes('/') ? path.slice(0, path.indexOf('/')) : path;
const show = (e: Edge): string => `${e.from} → ${e.to}${e.typeOnly ? ' (type)' : ''}`;

/** Packages and modules that do I/O: the pure core may not load them. */
const IO = /^(node:(fs|net|http|https|http2|child_process|dgram|tls|readline)(\/.*)?|fs|net|http|https|undici(\/.*)?)$/;

/** Modules of an I/O area that are plain data (types and pure helpers), which any layer may read. */
const DATA_MODULES = new Set([
  'live/model.ts',
  'apply/model.ts',
  'snapshot/model.ts',
  'drift/model.ts',
  'config/model.ts',
  'import/model.ts',
  // The wire types the clients answer in (canonical after normalisation).
  'services/automation/types.ts',
  'services/transfer/types.ts',
]);

/** Everything `from` loads at run time, transitively (type-only imports are erased). */
function runtimeClosure(from: string): Set<string> {
  const seen = new Set<string>([from]);
  const queue = [from];
  while (queue.length > 0) {
    const next = queue.pop()!;
    for (const e of EDGES) {
      if (e.from !== next || e.typeOnly || seen.has(e.to)) continue;
      seen.add(e.to);
      if (e.to.endsWith('.ts')) queue.push(e.to);
    }
  }
  return seen;
}

describe('the layers of docs/architecture.md', () => {
  it('sees the import graph (the parser finds the imports it is meant to hold)', () => {
    expect(EDGES.length).toBeGreaterThan(500);
    expect(EDGES).toContainEqual({ from: 'cli/main.ts', to: 'errors.ts', typeOnly: false });
    expect(
      ['kinds/task/io.ts', 'kinds/task/io-steps.ts', 'kinds/kind-io.ts', 'kinds/io-registry.ts', 'kinds/task/definition.ts', 'kinds/registry.ts'].map(area),
    ).toEqual(['kinds-io', 'kinds-io', 'kinds-io', 'kinds-io', 'kinds', 'kinds']);
  });

  it('the Action imports nothing from the CLI: both are views of src/app', () => {
    expect(EDGES.filter((e) => area(e.from) === 'action' && area(e.to) === 'cli').map(show)).toEqual([]);
  });

  it('only the views import src/app, and src/app imports no view', () => {
    const views = new Set(['cli', 'action']);
    expect(EDGES.filter((e) => area(e.to) === 'app' && area(e.from) !== 'app' && !views.has(area(e.from))).map(show)).toEqual([]);
    expect(EDGES.filter((e) => area(e.from) === 'app' && views.has(area(e.to))).map(show)).toEqual([]);
  });

  it('sees the I/O half of the kinds as its own area', () => {
    expect(['kinds/io-registry.ts', 'kinds/kind-io.ts', 'kinds/task/io.ts', 'kinds/task/io-match.ts'].map(area)).toEqual([
      'kinds-io',
      'kinds-io',
      'kinds-io',
      'kinds-io',
    ]);
    expect(['kinds/created-ids.ts', 'kinds/task/definition.ts'].map(area)).toEqual(['kinds', 'kinds']);
    expect(['kinds/task/model.ts', 'kinds/kind-types.ts', 'kinds/model-base.ts', 'kinds/kind.ts'].map(area)).toEqual([
      'kinds-model',
      'kinds-model',
      'kinds-model',
      'kinds',
    ]);
  });

  it("the kinds' types are data at the bottom: they import only the leaves and each other (type-only imports count)", () => {
    expect(EDGES.filter((e) => area(e.from) === 'kinds-model' && e.to.includes('/') && area(e.to) !== 'kinds-model').map(show)).toEqual([]);
    expect(EDGES.filter((e) => area(e.from) === 'kinds-model' && !e.to.endsWith('.ts')).map(show)).toEqual([]);
  });

  it.each(['plan', 'render', 'resources', 'access', 'kinds', 'kinds-model', 'adopt', 'schedule'])(
    'src/%s loads no I/O, directly or through what it imports',
    (layer) => {
      const offending = EDGES.filter((e) => area(e.from) === layer)
        .map((e) => e.from)
        .filter((f, i, all) => all.indexOf(f) === i)
        .flatMap((f) =>
          [...runtimeClosure(f)].filter((m) => IO.test(m) || ['services', 'app', 'cli', 'action', 'emulator'].includes(area(m))).map((m) => `${f} ⇒ ${m}`),
        );
      expect(offending).toEqual([]);
    },
  );

  it.each(['plan', 'render', 'resources', 'access', 'kinds', 'kinds-model', 'adopt', 'schedule'])(
    'src/%s reads the I/O areas only through their data modules',
    (layer) => {
      const io = new Set(['services', 'live', 'apply', 'snapshot', 'drift', 'import', 'app', 'cli', 'action', 'emulator', 'kinds-io']);
      expect(EDGES.filter((e) => area(e.from) === layer && io.has(area(e.to)) && !DATA_MODULES.has(e.to)).map(show)).toEqual([]);
    },
  );

  it('pure code imports only the pure halves of the kinds (type-only imports count)', () => {
    const pure = new Set(['plan', 'render', 'resources', 'access', 'policy', 'kinds', 'kinds-model', 'adopt', 'schedule']);
    const pureFiles = (e: Edge) => pure.has(area(e.from)) || e.from === 'drift/assemble-drift.ts' || e.from === 'drift/acknowledge.ts';
    expect(EDGES.filter((e) => pureFiles(e) && area(e.to) === 'kinds-io').map(show)).toEqual([]);
  });

  it('the kinds sit below the plan, the renderers and the phases that loop over them (type-only imports count)', () => {
    const above = new Set(['plan', 'render', 'drift', 'import', 'policy', 'apply', 'live', 'snapshot', 'app', 'cli', 'action']);
    expect(EDGES.filter((e) => area(e.from) === 'kinds' && above.has(area(e.to)) && !DATA_MODULES.has(e.to)).map(show)).toEqual([]);
  });

  it('no two areas of src import each other', () => {
    const pairs = new Set(
      EDGES.filter((e) => e.to.endsWith('.ts') && area(e.from) !== area(e.to) && e.from.includes('/') && e.to.includes('/')).map(
        (e) => `${area(e.from)} ${area(e.to)}`,
      ),
    );
    const mutual = [...pairs].filter((p) => pairs.has(p.split(' ').reverse().join(' ')));
    expect(mutual.sort()).toEqual([]);
  });

  it('src/cli has no import cycle, type imports included: a command takes its inputs from src/cli/io.ts, not from main.ts', () => {
    const cli = EDGES.filter((e) => area(e.from) === 'cli' && area(e.to) === 'cli');
    const reaches = (from: string, target: string, seen = new Set<string>()): boolean =>
      cli.some((e) => e.from === from && (e.to === target || (!seen.has(e.to) && seen.add(e.to) && reaches(e.to, target, seen))));
    expect(cli.filter((e) => reaches(e.to, e.from)).map(show)).toEqual([]);
  });

  it('lazy import() only where a command is dispatched, or where a comment gives the measured cost of a static import', () => {
    const lazy = new Set([
      // Command dispatch: a command, an Action step.
      'cli/main.ts',
      'action/run-action.ts',
      // Measured: each keeps out of some command a part it never uses (undici, the manifest loader,
      // fast-xml-parser, the planner, the policy engine); the comment at the import says which.
      'app/clients.ts',
      'app/crash-guard.ts',
      'app/environment.ts',
      'app/import.ts',
      'app/plan.ts',
      'app/snapshot.ts',
      'app/validate.ts',
      'snapshot/export-pass.ts',
      // Measured (issue 29): the plan renderers (the diff library) out of apply --format json, and
      // ajv's compiler out of every command run from a build, which has the validators compiled.
      'cli/commands/plan.ts',
      'manifest/schemas.ts',
    ]);
    const found = sourceFiles(SRC)
      .filter((file) => /\bimport\(\s*['"]/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(SRC, file).split('\\').join('/'))
      .filter((file) => area(file) !== 'emulator');
    expect(found.filter((file) => !lazy.has(file))).toEqual([]);
  });

  it('undici is loaded by src/services/undici-parts.ts alone, file by file: its index loads all of it (issue 29: ~100 ms of every start)', () => {
    const runtime = EDGES.filter((e) => !e.typeOnly && /^undici(\/|$)/.test(e.to));
    expect(runtime.filter((e) => e.from !== 'services/undici-parts.ts' || e.to === 'undici').map(show)).toEqual([]);
    expect(runtime.length).toBeGreaterThan(0);
  });

  it('the emulator takes from product code only the shared error type, the XML entity decoder and the name suggester', () => {
    const allowed = new Set(['errors.ts', 'xml-entities.ts', 'manifest/suggest.ts']);
    expect(EDGES.filter((e) => area(e.from) === 'emulator' && e.to.endsWith('.ts') && area(e.to) !== 'emulator' && !allowed.has(e.to)).map(show)).toEqual([]);
  });
});
