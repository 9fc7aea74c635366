import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorEnvironmentsYaml } from '../../src/emulator/config-for.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { findSchemasDir, SCHEMA_BASE_URL } from '../../src/manifest/schemas.js';
import { DIAGNOSTIC_CODES } from '../../src/diagnostics.js';
import { JSON_OUTPUT_VERSIONS, outputSchemaFile, type JsonOutputKind } from '../../src/render/json-output.js';
import { ALL_SECRETS, APPLY_ENV, applyWorkdir } from '../apply/helpers.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';

/**
 * The one JSON contract, end to end: with --format json every command prints exactly one object
 * on stdout, `formatVersion` and `kind` first, that the JSON Schema of its kind in schemas/
 * accepts; a command that fails prints an `mftops.error` document there instead, and exits 1.
 */

const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });
addFormats.default(ajv);
for (const file of readdirSync(findSchemasDir()).filter((f) => f.startsWith('output-') || f === 'plan.schema.json' || f === 'kinds.schema.json')) {
  ajv.addSchema(JSON.parse(readFileSync(join(findSchemasDir(), file), 'utf8')) as object);
}

/** The one document of `r.stdout`, checked: its envelope, then its kind's schema. */
function documentOf(r: CliResult, kind: JsonOutputKind): Record<string, unknown> {
  const doc = JSON.parse(r.stdout) as Record<string, unknown>;
  expect(Object.keys(doc).slice(0, 2)).toEqual(['formatVersion', 'kind']);
  expect([doc['formatVersion'], doc['kind']]).toEqual([JSON_OUTPUT_VERSIONS[kind], kind]);
  expectSchema(doc, kind);
  return doc;
}

function expectSchema(doc: unknown, kind: JsonOutputKind): void {
  const validate = ajv.getSchema(`${SCHEMA_BASE_URL}${outputSchemaFile(kind)}`);
  if (validate === undefined) throw new Error(`no schema ${outputSchemaFile(kind)}`);
  expect(validate(doc) ? [] : validate.errors, `${kind} against ${outputSchemaFile(kind)}`).toEqual([]);
}

/** The `errors` of the `mftops.error` document a failing command prints (exit 1). */
async function failure(args: readonly string[], cwd: string, env: Record<string, string> = APPLY_ENV): Promise<Array<Record<string, unknown>>> {
  const r = await runCli([...args, '--format', 'json'], { cwd, env });
  expect(r.code, args.join(' ')).toBe(1);
  return documentOf(r, 'mftops.error')['errors'] as Array<Record<string, unknown>>;
}

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());

describe('--format json: one document per command, described by its schema', () => {
  it('gives every kind a schema file under the published base URL, and the table of versions keeps plan at 2 and drift at 3', () => {
    for (const kind of Object.keys(JSON_OUTPUT_VERSIONS) as JsonOutputKind[])
      expect(ajv.getSchema(`${SCHEMA_BASE_URL}${outputSchemaFile(kind)}`), kind).toBeDefined();
    expect(JSON_OUTPUT_VERSIONS['mftops.plan']).toBe(2);
    expect(JSON_OUTPUT_VERSIONS['mftops.drift']).toBe(3);
  });

  it('validate, status, plan, drift (and its --report file), apply, the snapshot commands and import', async () => {
    const dir = applyWorkdir(emulator);
    const cli = (...args: string[]) => runCli([...args, '--format', 'json'], { cwd: dir, env: APPLY_ENV });
    const outputs: string[] = [];
    const run = async (kind: JsonOutputKind, code: number, ...args: string[]) => {
      const r = await cli(...args);
      expect([r.code, r.stderr], args.join(' ')).toEqual([code, expect.any(String)]);
      outputs.push(r.stdout, r.stderr);
      return documentOf(r, kind);
    };

    expect(await run('mftops.validate', 0, 'validate')).toMatchObject({ valid: true, diagnostics: [] });
    writeFileSync(join(dir, 'bad.yaml'), 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: x }\nspec: { Activ: 1 }\n');
    expect(await run('mftops.validate', 1, 'validate', 'bad.yaml')).toMatchObject({
      valid: false,
      diagnostics: [{ code: 'MF201', file: 'bad.yaml', line: 4 }],
    });

    const status = await run('mftops.status', 0, 'status');
    expect((status['services'] as Array<{ counts: object }>).map((s) => s.counts)).toEqual([
      { tasks: 8, hosts: 8, resourceGroups: 3, resourceGroupAcls: 3 },
      { users: 8, groups: 4 },
    ]);

    const plan = await run('mftops.plan', 0, 'plan');
    expect(new Set((plan['changes'] as Array<{ action: string }>).map((c) => c.action))).toEqual(new Set(['create', 'update', 'replace', 'delete', 'no-op']));

    const drift = await run('mftops.drift', 2, 'drift', '--report', 'drift.json');
    expect(drift['status']).toBe('drift');
    const report = JSON.parse(readFileSync(join(dir, 'drift.json'), 'utf8')) as Record<string, unknown>;
    expectSchema(report, 'mftops.drift');
    expect(report['kind']).toBe('mftops.drift');

    // Part of the manifests: prune off, said in the plan and the drift report, which their schemas describe.
    expect((await run('mftops.plan', 0, 'plan', 'manifests/tasks.yaml'))['pruneOff']).toMatchObject({ reason: 'partial-manifests' });
    expect((await run('mftops.drift', 2, 'drift', 'manifests/tasks.yaml'))['unmanagedOmitted']).toBe('partial-manifests');

    expect(await run('mftops.apply', 0, 'apply', '--auto-approve', '--allow-delete', '--allow-replace')).toMatchObject({ outcome: 'applied', exitCode: 0 });

    const saved = await run('mftops.snapshot.save', 0, 'snapshot', 'save');
    const list = await run('mftops.snapshot.list', 0, 'snapshot', 'list');
    const ids = (list['snapshots'] as Array<{ id: string }>).map((s) => s.id);
    expect(ids).toHaveLength(2);
    expect(ids.at(-1)).toBe((saved['snapshot'] as { id: string }).id);
    expect(await run('mftops.snapshot.verify', 0, 'snapshot', 'verify', ids[0]!)).toMatchObject({ ok: true });
    // The apply between them changed the servers: they differ, exit 2.
    expect(await run('mftops.snapshot.diff', 2, 'snapshot', 'diff', ids[0]!, ids[1]!)).toMatchObject({ a: { id: ids[0] }, b: { id: ids[1] } });
    expect(await run('mftops.snapshot.restore', 0, 'snapshot', 'restore', ids[0]!, '--auto-approve')).toMatchObject({
      complete: true,
      restored: { id: ids[0] },
    });

    const imported = await run('mftops.import', 0, 'import', '--out', 'imported', '--kind', 'Task');
    expect((imported['files'] as unknown[]).length).toBeGreaterThan(0);

    for (const secret of ALL_SECRETS) expect(outputs.join('\n')).not.toContain(secret);
  });

  it('show, fmt, init and explain', async () => {
    const dir = applyWorkdir(emulator);
    const cli = (...args: string[]) => runCli([...args, '--format', 'json'], { cwd: dir, env: APPLY_ENV });
    const run = async (kind: JsonOutputKind, code: number, ...args: string[]) => {
      const r = await cli(...args);
      expect(r.code, args.join(' ')).toBe(code);
      return documentOf(r, kind);
    };
    const planned = await run('mftops.plan', 0, 'plan', '--out', 'tfplan');
    expect(await run('mftops.plan', 0, 'show', 'tfplan')).toEqual(planned);

    writeFileSync(join(dir, 'manifests/messy.yaml'), 'kind: Task\napiVersion: mftops/v1\nspec: { Group: [Finance] }\nmetadata: { name: Messy }\n');
    writeFileSync(join(dir, 'manifests/broken.yaml'), 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: x }\nspec: { Activ: 1 }\n');
    const fmt = await run('mftops.fmt', 1, 'fmt', '--check', 'manifests');
    expect(fmt).toMatchObject({ status: 'invalid', check: true, diagnostics: [{ code: 'MF201', file: 'manifests/broken.yaml' }] });
    expect(fmt['files']).toContainEqual({ file: 'manifests/messy.yaml', state: 'unformatted' });

    expect(await run('mftops.init', 0, 'init', 'fresh', '--action-ref', 'acme-corp/mftops@v1')).toMatchObject({
      dir: 'fresh',
      files: expect.arrayContaining(['fresh/mftops.yaml']),
      action: 'acme-corp/mftops@v1',
    });
    expect((await failure(['init', 'fresh', '--action-ref', 'acme-corp/mftops@v1'], dir))[0]).toMatchObject({
      severity: 'error',
      message: expect.stringMatching(/already exist; nothing was written .* fresh\/mftops\.yaml/),
    });

    expect(((await run('mftops.explain', 0, 'explain'))['codes'] as unknown[]).length).toBe(Object.keys(DIAGNOSTIC_CODES).length);
    expect((await run('mftops.explain', 0, 'explain', 'MF201'))['code']).toMatchObject({ code: 'MF201', name: 'unknown-field', stage: 'manifests' });
    expect(await failure(['explain', 'MF999'], dir)).toEqual([{ severity: 'error', message: expect.stringMatching(/^no diagnostic code "MF999"/) }]);
  });
});

describe('--format json of diff-env', () => {
  it('is one mftops.diff-env document, servers read or --offline, that its schema accepts', async () => {
    const dir = applyWorkdir(emulator);
    const environments = [
      { environment: 'lab', automationUrl: emulator.automationUrl, transferUrl: emulator.transferUrl, manifests: ['manifests'] },
      { environment: 'next', automationUrl: emulator.automationUrl, transferUrl: emulator.transferUrl, manifests: ['manifests', 'next'] },
    ];
    writeFileSync(join(dir, 'mftops.yaml'), emulatorEnvironmentsYaml(environments));
    mkdirSync(join(dir, 'next'));
    writeFileSync(
      join(dir, 'next/extra.yaml'),
      'apiVersion: mftops/v1\nkind: FolderPermissions\nmetadata: { name: /Distribution/Initech/Extra }\nspec:\n  createIfMissing: { inheritPermissions: CopyOnly }\n  mode: exact\n  entries: [{ user: bob, permissions: [listFiles] }]\n',
    );
    for (const offline of [[], ['--offline']]) {
      const r = await runCli(['diff-env', 'lab', 'next', ...offline, '--format', 'json'], { cwd: dir, env: APPLY_ENV });
      expect(r.code, r.stderr).toBe(2);
      const doc = documentOf(r, 'mftops.diff-env');
      expect(doc).toMatchObject({ a: 'lab', b: 'next', offline: offline.length > 0, differ: true, summary: { onlyInA: 0, onlyInB: 1, differ: 0 } });
      expect(doc['objects']).toContainEqual(
        expect.objectContaining({
          address: 'FolderPermissions/Distribution/Initech/Extra',
          presence: 'only-in-b',
          source: { b: { file: 'next/extra.yaml', line: 1, col: 1 } },
        }),
      );
    }
  });
});

describe('--format json: a command that fails prints an mftops.error document on stdout and exits 1', () => {
  it('the configuration file wrong, or missing: its diagnostics', async () => {
    const dir = applyWorkdir(emulator);
    writeFileSync(join(dir, 'mftops.yaml'), readFileSync(join(dir, 'mftops.yaml'), 'utf8').replace('prune:', 'prnue:'));
    expect(await failure(['status'], dir)).toEqual([expect.objectContaining({ severity: 'error', code: 'MF503', file: 'mftops.yaml' })]);
    expect(await failure(['--config', 'nowhere.yaml', 'plan'], dir)).toEqual([expect.objectContaining({ code: 'MF501' })]);
  });

  it('manifests that do not validate, or name what the servers do not have: the diagnostics of plan, drift and apply', async () => {
    const dir = applyWorkdir(emulator, { files: { 'manifests/bad.yaml': 'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: x }\nspec: { Activ: 1 }\n' } });
    for (const command of [['plan'], ['drift'], ['apply', '--auto-approve']]) {
      expect(await failure(command, dir)).toEqual([expect.objectContaining({ severity: 'error', code: 'MF201', file: 'manifests/bad.yaml' })]);
    }
    const unknown = applyWorkdir(emulator);
    expect(await failure(['plan', '--target', 'Tsk/Nowhere'], unknown)).toEqual([expect.objectContaining({ code: 'MF409', address: 'Tsk/Nowhere' })]);
  });

  it('failures that are no diagnostic: one message each, without a code', async () => {
    const dir = applyWorkdir(emulator);
    const messages = async (args: readonly string[]) => (await failure(args, dir)).map((e) => [e['severity'], e['code'], e['message']]);
    expect(await messages(['--env', 'staging', 'status'])).toEqual([['error', undefined, expect.stringMatching(/^environment "staging" is not in /)]]);
    expect(await messages(['plan', '--no-such-option'])).toEqual([['error', undefined, "unknown option '--no-such-option' (see mftops plan --help)"]]);
    expect(await messages(['import', '--kind', 'Task', '--name', 'No such task*', '--out', 'x'])).toEqual([
      ['error', undefined, expect.stringMatching(/^nothing to import: /)],
    ]);
    expect(await messages(['emulator'])).toEqual([['error', undefined, 'emulator prints text, not json']]);
    const unreachable = applyWorkdir(emulator, { automationUrl: 'http://127.0.0.1:9/automation' });
    expect((await failure(['plan'], unreachable)).map((e) => [e['code'], typeof e['message']])).toEqual([[undefined, 'string']]);
  });
});
