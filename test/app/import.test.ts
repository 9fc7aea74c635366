import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { importEnvironment } from '../../src/app/import.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { ConfigError } from '../../src/errors.js';
import { saveSnapshot } from '../../src/snapshot/save-snapshot.js';
import { writesOf } from '../apply/helpers.js';
import { PASSWORDS, configYaml } from '../drift/helpers.js';
import type { ConfigOptions } from '../drift/helpers.js';
import { testdir } from '../helpers/testdir.js';
import { automationClientFor, startSeededEmulator } from '../integration/helpers.js';
import { messagesOf, recordingContext } from './helpers.js';

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startSeededEmulator();
});
afterAll(() => emulator.close());
beforeEach(() => emulator.resetRequestLog());

function workdir(config: Omit<ConfigOptions, 'url'> = {}): string {
  return testdir({ 'mftops.yaml': configYaml({ url: emulator.url, ...config }) });
}

describe('importEnvironment', () => {
  it('writes one file per object and returns them with their notes and the secrets to set, reading only', async () => {
    const dir = workdir();
    const ctx = recordingContext(dir, PASSWORDS);
    const result = await importEnvironment({ kinds: ['Task'], out: 'manifests' }, ctx);
    if (result.status !== 'imported') throw new Error(`expected imported, got ${JSON.stringify(result)}`);
    expect(result.origin).toBe(emulator.automationUrl);
    expect(result.outDir).toBe(join(dir, 'manifests'));
    expect(result.files).toHaveLength(8);
    const payroll = result.files.find((f) => f.address === 'Task/Payroll to bank')!;
    expect(payroll).toEqual({
      path: join(dir, 'manifests', 'tasks', 'payroll-to-bank.yaml'),
      relPath: 'tasks/payroll-to-bank.yaml',
      address: 'Task/Payroll to bank',
      notes: [],
    });
    expect(readFileSync(payroll.path, 'utf8')).toContain('value: ${env:PAYROLL_TO_BANK_APIKEY}');
    for (const f of result.files) expect(existsSync(f.path), f.relPath).toBe(true);
    expect(result.files.find((f) => f.relPath === 'tasks/legacy-edi-router.yaml')!.notes.some((n) => n.startsWith('steps: For steps cannot be written'))).toBe(
      true,
    );
    expect(result.secrets).toEqual([{ variable: 'PAYROLL_TO_BANK_APIKEY', address: 'Task/Payroll to bank', field: 'Parameters.ApiKey' }]);
    expect(ctx.events).toEqual([]);
    expect(writesOf(emulator)).toEqual([]);
  });

  it('imports folders by path glob from the transfer service, reporting the folder reads as progress', async () => {
    const dir = workdir();
    const ctx = recordingContext(dir, PASSWORDS);
    const result = await importEnvironment({ kinds: ['FolderPermissions'], name: '/Distribution/*/Outbound' }, ctx);
    if (result.status !== 'imported') throw new Error(`expected imported, got ${JSON.stringify(result)}`);
    expect(result.origin).toBe(emulator.transferUrl);
    expect(result.files.map((f) => [f.relPath, f.address])).toEqual([
      ['folders/distribution-acme-outbound.yaml', 'FolderPermissions/Distribution/Acme/Outbound'],
      ['folders/distribution-globex-outbound.yaml', 'FolderPermissions/Distribution/Globex/Outbound'],
      ['folders/distribution-initech-outbound.yaml', 'FolderPermissions/Distribution/Initech/Outbound'],
    ]);
    const progress = ctx.events.filter((e) => e.kind === 'progress');
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toMatchObject({ done: expect.any(Number), what: expect.any(String) });
    const last = progress.at(-1) as { done: number; total: number };
    expect(last.done).toBe(last.total);
    expect(emulator.requestLog().every((r) => r.path.startsWith('/transfer/'))).toBe(true);
    expect(writesOf(emulator)).toEqual([]);
  });

  it('writes nothing over existing files without force and names them; with force it overwrites', async () => {
    const dir = workdir();
    expect((await importEnvironment({ kinds: ['Task'], name: '*bank*' }, recordingContext(dir, PASSWORDS))).status).toBe('imported');
    // No out: the environment's manifests folder.
    const kept = join(dir, 'manifests', 'tasks', 'payroll-to-bank.yaml');
    writeFileSync(kept, '# my edits\n');
    const again = await importEnvironment({ kinds: ['Task'], name: '*bank*' }, recordingContext(dir, PASSWORDS));
    expect(again).toEqual({ status: 'exists', files: [join(dir, 'manifests', 'tasks', 'bank-statements-in.yaml'), kept] });
    expect(readFileSync(kept, 'utf8')).toBe('# my edits\n');
    const forced = await importEnvironment({ kinds: ['Task'], name: '*bank*', force: true }, recordingContext(dir, PASSWORDS));
    expect(forced.status).toBe('imported');
    expect(readFileSync(kept, 'utf8')).toContain('kind: Task');
  });

  it('says what it looked for where when nothing matches, and writes nothing', async () => {
    const dir = workdir();
    const result = await importEnvironment({ kinds: ['Task'], name: 'no such task', out: 'm' }, recordingContext(dir, PASSWORDS));
    expect(result).toEqual({ status: 'nothing', reason: `no Task in ${emulator.automationUrl} matches --name "no such task"` });
    expect(existsSync(join(dir, 'm'))).toBe(false);
  });

  it('without kinds, leaves out with a note a kind the environment has no service or scope for; an explicit kind for it is an error', async () => {
    const config = parse(configYaml({ url: emulator.url })) as { environments: { lab: Record<string, unknown> } };
    delete config.environments.lab['transfer'];
    const automationOnly = testdir({ 'mftops.yaml': stringify(config) });
    const ctx = recordingContext(automationOnly, PASSWORDS);
    const result = await importEnvironment({}, ctx);
    if (result.status !== 'imported') throw new Error(`expected imported, got ${JSON.stringify(result)}`);
    expect(new Set(result.files.map((f) => f.address.split('/')[0]))).toEqual(new Set(['Task', 'ResourceGroupAcl']));
    expect(messagesOf(ctx.events)).toEqual(['note: environment "lab" has no transfer service: FolderPermissions not imported']);
    await expect(importEnvironment({ kinds: ['FolderPermissions'] }, recordingContext(automationOnly, PASSWORDS))).rejects.toThrow(
      'environment "lab" has no transfer service',
    );

    const noFolderScope = workdir({ scope: { taskGroups: ['Finance'], folders: [] } });
    const scoped = recordingContext(noFolderScope, PASSWORDS);
    const finance = await importEnvironment({}, scoped);
    expect(finance.status === 'imported' && finance.files.map((f) => f.address)).toEqual([
      'Task/Bank statements in',
      'Task/Payroll to bank',
      'ResourceGroupAcl/finance-finance-operators',
    ]);
    expect(messagesOf(scoped.events)).toEqual(['note: environment "lab" has no scope.folders: FolderPermissions not imported']);
  });

  it('refuses a --name that means two things, or a folder name that is not a path, before any request', async () => {
    const dir = workdir();
    await expect(importEnvironment({ kinds: ['Task', 'FolderPermissions'], name: 'x' }, recordingContext(dir, PASSWORDS))).rejects.toThrow(ConfigError);
    await expect(importEnvironment({ kinds: ['FolderPermissions'], name: 'Distribution' }, recordingContext(dir, PASSWORDS))).rejects.toThrow(
      '--name for FolderPermissions is a folder path starting with /, not "Distribution"',
    );
    await expect(importEnvironment({ kinds: ['Task'], name: '  ' }, recordingContext(dir, PASSWORDS))).rejects.toThrow('--name must not be empty');
    expect(emulator.requestLog()).toEqual([]);
  });

  it('imports from a saved snapshot without a request, and warns when the snapshot holds no folder permissions', async () => {
    const dir = workdir({ snapshotsDir: 'snapshots' });
    const automation = automationClientFor(emulator);
    await saveSnapshot({ automation, automationUrl: emulator.automationUrl, folders: [], env: 'lab', dir: join(dir, 'snapshots'), keep: 5 });
    await automation.close();
    emulator.resetRequestLog();

    const ctx = recordingContext(dir, PASSWORDS);
    const tasks = await importEnvironment({ kinds: ['Task'], name: 'Payroll*', fromSnapshot: 'latest' }, ctx);
    if (tasks.status !== 'imported') throw new Error(`expected imported, got ${JSON.stringify(tasks)}`);
    expect(tasks.origin).toMatch(/^snapshot lab\/\S+$/);
    expect(tasks.files.map((f) => f.address)).toEqual(['Task/Payroll to bank']);
    expect(tasks.secrets.map((s) => s.variable)).toEqual(['PAYROLL_TO_BANK_APIKEY']);
    expect(messagesOf(ctx.events)).toEqual([]);

    const foldersCtx = recordingContext(dir, PASSWORDS);
    const folders = await importEnvironment({ kinds: ['FolderPermissions'], fromSnapshot: 'latest' }, foldersCtx);
    expect(folders.status).toBe('nothing');
    expect(messagesOf(foldersCtx.events)).toEqual([
      'warning: the snapshot holds no folder permissions (a snapshot keeps only the folders an apply touched, or those snapshot save was given or found)',
    ]);
    expect(emulator.requestLog()).toEqual([]);
  });
});
