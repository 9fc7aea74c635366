import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorConfigYaml } from '../../src/emulator/config-for.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { findSchemasDir, SCHEMA_BASE_URL } from '../../src/manifest/schemas.js';
import { writesOf } from '../apply/helpers.js';
import { forward } from '../helpers/hold-proxy.js';
import { hasStackTrace, runCli, type CliResult } from '../helpers/run-cli.js';
import { testdir } from '../helpers/testdir.js';
import { SEED_LOGINS, startSeededEmulator } from '../integration/helpers.js';

/**
 * Issue 23, finding 8: a read that fails (a wrong password, a proxy's HTML page, a redirect) ends
 * every command the same way: exit 1, one `mftops: error:` line, never Node's stack trace; with
 * `--format json` one error document on stdout; after apply, no lock left and no write sent. Both
 * services are configured, so the plan reads them at once and the transfer reads wait on the
 * automation ones (the cross-server checks): where a failed automation read used to be an
 * unhandled rejection that Node turned into a crash with a stack trace.
 */

const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });
addFormats.default(ajv);
for (const file of readdirSync(findSchemasDir()).filter((f) => f.startsWith('output-')))
  ajv.addSchema(JSON.parse(readFileSync(join(findSchemasDir(), file), 'utf8')) as object);
const validErrorDocument = ajv.getSchema(`${SCHEMA_BASE_URL}output-error.schema.json`)!;

const GOOD = { MFT_AUTOMATION_PASSWORD: SEED_LOGINS.automationAdmin.password, MFT_TRANSFER_PASSWORD: SEED_LOGINS.transferAdmin.password };

/** A task update and a folder both services are read for; applied, it writes to the automation server. */
const MANIFESTS = {
  'manifests/task.yaml':
    'apiVersion: mftops/v1\nkind: Task\nmetadata: { name: Payroll to bank }\nspec:\n  Group: [Finance]\n  Info: { Description: changed by the failing-reads test }\n',
  'manifests/folder.yaml':
    'apiVersion: mftops/v1\nkind: FolderPermissions\nmetadata: { name: /Distribution/Acme/Inbound }\nspec:\n  mode: additive\n  entries: []\n',
};

const servers: Server[] = [];
let emulator: RunningEmulator;
/** Answers every request with a proxy's sign-in page (200, text/html). */
let htmlUrl: string;
/** Answers every request with a 302 to somewhere else. */
let redirectUrl: string;

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  emulator = await startSeededEmulator();
  htmlUrl = await listen(
    createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!DOCTYPE html><html><head><title>Sign in</title></head><body><form action="/login">Corporate proxy: sign in</form></body></html>');
    }),
  );
  redirectUrl = await listen(
    createServer((req, res) => {
      req.resume();
      res.writeHead(302, { location: 'http://127.0.0.1:9/login?next=%2F' });
      res.end();
    }),
  );
});
afterAll(async () => {
  await emulator.close();
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((r) => {
          s.closeAllConnections();
          s.close(() => r());
        }),
    ),
  );
});

interface Fault {
  readonly automationUrl?: () => string;
  readonly transferUrl?: () => string;
  readonly env?: Record<string, string>;
  /** What the error line names. */
  readonly message: RegExp;
}

const FAULTS: Record<string, Fault> = {
  'a wrong password for the automation service': {
    env: { MFT_AUTOMATION_PASSWORD: 'not-the-password' },
    message: /^mftops: error: automation: .*invalid_grant/,
  },
  'a wrong password for the transfer service': { env: { MFT_TRANSFER_PASSWORD: 'not-the-password' }, message: /^mftops: error: transfer: .*invalid_grant/ },
  // Both services behind it: whichever answers first is the error.
  'a proxy answering an HTML page': {
    automationUrl: () => `${htmlUrl}/automation`,
    transferUrl: () => `${htmlUrl}/transfer`,
    message: /^mftops: error: (automation|transfer): .*text\/html/,
  },
  'a redirect to elsewhere': {
    automationUrl: () => `${redirectUrl}/automation`,
    transferUrl: () => `${redirectUrl}/transfer`,
    message: /^mftops: error: (automation|transfer): .*302.*never follows redirects/,
  },
};

const COMMANDS: Record<string, readonly string[]> = {
  plan: ['plan'],
  drift: ['drift'],
  apply: ['apply', '--auto-approve'],
  import: ['import', '--out', 'imported'],
};

function project(fault: Fault): string {
  return testdir({
    'mftops.yaml': [
      emulatorConfigYaml({
        automationUrl: fault.automationUrl?.() ?? emulator.automationUrl,
        transferUrl: fault.transferUrl?.() ?? emulator.transferUrl,
        manifests: ['manifests'],
        scope: { taskGroups: ['Finance'], folders: ['/Distribution/Acme'] },
      }).trimEnd(),
      '    prune: []',
      'snapshots: { dir: .mftops/snapshots, keep: 10 }',
      '',
    ].join('\n'),
    ...MANIFESTS,
  });
}

/** No Node crash output of any kind: stack frames, the "Node.js v20" footer, the source line's caret. */
function expectNoCrashOutput(r: CliResult): void {
  for (const text of [r.stdout, r.stderr]) {
    expect(hasStackTrace(text)).toBe(false);
    expect(text).not.toMatch(/^ {4}at /m);
    expect(text).not.toContain('Node.js v');
  }
}

function expectNothingLeft(dir: string, command: string): void {
  // The apply lock is released; import wrote no manifest.
  expect(existsSync(join(dir, '.mftops/snapshots/lab/apply.lock'))).toBe(false);
  if (command === 'import') expect(existsSync(join(dir, 'imported')) ? readdirSync(join(dir, 'imported')) : []).toEqual([]);
}

describe('a failing read ends plan, drift, apply and import with one error line, never a stack trace', () => {
  for (const [faultName, fault] of Object.entries(FAULTS)) {
    describe(faultName, () => {
      for (const [command, args] of Object.entries(COMMANDS)) {
        it(`${command}: exit 1, one "mftops: error:" line naming the cause; --format json: one error document on stdout`, async () => {
          emulator.resetRequestLog();
          // Two projects: the two runs go at once, and two applies of one environment would meet at its lock.
          const [dir, jsonDir] = [project(fault), project(fault)];
          const env = { ...GOOD, ...fault.env };
          const [text, json] = await Promise.all([runCli(args, { cwd: dir, env }), runCli([...args, '--format', 'json'], { cwd: jsonDir, env })]);
          expectNoCrashOutput(text);
          expect(text.code).toBe(1);
          const errorLines = text.stderr.split('\n').filter((l) => l.startsWith('mftops: error:'));
          expect(errorLines).toHaveLength(1);
          expect(errorLines[0]).toMatch(fault.message);
          expect(text.stderr).not.toContain('this is a bug in mftops');
          expectNothingLeft(dir, command);

          expectNoCrashOutput(json);
          expect(json.code).toBe(1);
          const doc = JSON.parse(json.stdout) as { errors: { message: string }[] };
          expect(validErrorDocument(doc), JSON.stringify(validErrorDocument.errors)).toBe(true);
          expect(doc.errors).toHaveLength(1);
          expect(`mftops: error: ${doc.errors[0]!.message}`).toMatch(fault.message);
          expectNothingLeft(jsonDir, command);

          // Nothing reached the servers but reads and token calls.
          expect(writesOf(emulator)).toEqual([]);
        });
      }
    });
  }
});

describe("apply's verification after writing, when a read fails there", () => {
  let fresh: RunningEmulator;
  let proxyUrl: string;
  /** Set once a write has gone through: from then on the automation reads are redirected elsewhere. */
  let wrote = false;
  beforeAll(async () => {
    fresh = await startSeededEmulator();
    proxyUrl = await listen(
      createServer((req, res) => {
        const write = req.method !== 'GET' && !/\/token(\/revoke)?$/.test(req.url ?? '');
        if (wrote && req.method === 'GET' && (req.url ?? '').startsWith('/automation/')) {
          req.resume();
          res.writeHead(302, { location: 'http://127.0.0.1:9/login' });
          res.end();
          return;
        }
        void forward(fresh, req, res).then(() => {
          if (write) wrote = true;
        });
      }),
    );
  });
  afterAll(() => fresh.close());

  it('reports the verification as failed with the cause (exit 1, one JSON report), no stack trace, and leaves no lock', async () => {
    const dir = testdir({
      'mftops.yaml': [
        emulatorConfigYaml({
          automationUrl: `${proxyUrl}/automation`,
          transferUrl: `${proxyUrl}/transfer`,
          manifests: ['manifests'],
          scope: { taskGroups: ['Finance'], folders: ['/Distribution/Acme'] },
        }).trimEnd(),
        '    prune: []',
        'snapshots: { dir: .mftops/snapshots, keep: 10 }',
        '',
      ].join('\n'),
      ...MANIFESTS,
    });
    const r = await runCli(['apply', '--auto-approve', '--format', 'json'], { cwd: dir, env: GOOD });
    expectNoCrashOutput(r);
    expect(wrote).toBe(true);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(JSON.stringify(report)).toMatch(/verification failed: automation: GET [^"]*302[^"]*never follows redirects/);
    expect(existsSync(join(dir, '.mftops/snapshots/lab/apply.lock'))).toBe(false);
  });
});
