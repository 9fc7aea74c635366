import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../config/load-config.js';
import type { EnvironmentSettings } from '../config/model.js';
import { emulatorEnvironmentsYaml } from '../emulator/config-for.js';
import { loadSeedFile, startEmulator, type RunningEmulator } from '../emulator/index.js';
import { withDefined } from '../with-defined.js';

/**
 * `npm run demo`: the whole loop on the example estate, narrated, in about 150 lines. The
 * production environment of examples/mftops.yaml runs on an emulator on a free port; a scratch
 * folder holds a copy of examples/ and an mftops.yaml pointing at it, and the real CLI runs there
 * as a user would type it: status, plan (saved), apply of that plan, a change made behind git's
 * back through the REST API by another user, drift naming that user, and a restore of the
 * snapshot apply took. `--environments` adds the staging emulator and the promotion view
 * (diff-env). Exits 0 only when every step did what it should and no command printed a warning.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const examples = join(root, 'examples');
// The passwords of the example seeds' admin accounts (examples/seed/*.json), and the secret an
// example task sends. They are handed to the CLI through environment variables, as a real
// configuration (or a CI job's secrets) would.
const DEMO_ENV = { MFT_AUTOMATION_PASSWORD: 'admin-Pa55!seed', MFT_TRANSFER_PASSWORD: 'xfer-admin-Pa55!seed', ACME_SFTP_PASSWORD: 'demo-acme-sftp-secret' };
// The example task that reads its password from a file (`${file:secrets/…}`): git holds no such file.
const DEMO_SECRET_FILE = { path: 'manifests/tasks/secrets/finance-share-audit.txt', value: 'demo-audit-share-secret' };
// The seed of each environment of examples/mftops.yaml; a release is promoted from staging to production.
const SEEDS: Readonly<Record<string, string>> = { staging: 'seed/staging-seed.json', production: 'seed/emulator-seed.json' };
const PROMOTION = ['staging', 'production'] as const;
/**
 * The change made behind git's back: a user of the seed who may edit finance tasks (resource
 * group Finance, TaskEditExisting) moves a task's run, as someone at the server's console would.
 */
const OUT_OF_BAND = { username: 'operator', password: 'operator-Pa55!seed', task: 'Payroll to bank', from: '02:00', to: '04:30' } as const;
const STEPS = 6;

/** Lines of a command's output shown in full, or its first and last lines with the rest counted. */
interface Excerpt {
  readonly head: number;
  readonly tail: number;
  /** What the elided lines are and how to see them. */
  readonly rest: string;
  /** Elided lines shown all the same (after the count): summaries and the headers of destructive or blocked changes, wherever the output puts them. */
  readonly keep?: RegExp;
}

interface Ran {
  readonly code: number;
  readonly lines: readonly string[];
}

async function runDemo(withEnvironments: boolean): Promise<number> {
  const all = [...loadConfig(join(examples, 'mftops.yaml')).environments.values()];
  const environments = withEnvironments ? all : all.filter((e) => e.name === 'production');
  const emulators = new Map<string, RunningEmulator>();
  const work = mkdtempSync(join(tmpdir(), 'mftops-demo-'));
  const out = (text: string): void => void process.stdout.write(`${text}\n`);
  try {
    for (const env of environments) {
      const seed = SEEDS[env.name];
      if (seed === undefined) throw new Error(`no seed for the environment "${env.name}" of examples/mftops.yaml`);
      emulators.set(env.name, await startEmulator({ seed: loadSeedFile(join(examples, seed)) }));
    }
    const production = emulators.get('production');
    if (production === undefined) throw new Error('examples/mftops.yaml has no environment "production"');
    prepareWorkFolder(work, environments, emulators);
    // One environment: every command finds it without --env, as in a project that has one.
    const env = withEnvironments ? ['--env', 'production'] : [];
    const cli = (args: readonly string[], expect: number, excerpt?: Excerpt): Promise<string[] | undefined> => runStep(args, expect, work, excerpt);

    out(`mftops demo: the example estate (examples/) on the built-in emulator at ${production.url}, signed in as its admin.`);
    out(
      `Each step runs the mftops CLI in a scratch folder holding mftops.yaml${withEnvironments ? ` (environments ${environments.map((e) => e.name).join(' and ')})` : ' (environment production)'} and a copy of examples/.`,
    );

    narrate(1, 'status: can mftops reach both servers and sign in with the configured credentials?');
    if (!(await cli(['status', ...env], 0))) return 1;

    narrate(
      2,
      'plan: what would change, read-only, saved for apply.',
      'Look at the policy checks, then "Access changes" (who gains or loses what, through which',
      'group), then what is blocked (a person must do it), and the counts on the line "Plan:".',
    );
    if (
      !(await cli(['plan', ...env, '--out', 'demo.plan'], 0, {
        head: 24,
        tail: 1,
        keep: /^(Plan|Cross-server checks): |^(-\/\+|-|!) [A-Z]\w+\//,
        rest: 'every changed object field by field; `mftops show demo.plan` prints the whole plan',
      }))
    )
      return 1;

    narrate(
      3,
      'apply: exactly the saved plan, after checking the servers did not change since;',
      'a snapshot of both servers first, then the writes, then a fresh plan to verify.',
    );
    const applied = await cli(['apply', ...env, 'demo.plan'], 0);
    if (!applied) return 1;
    const snapshot = applied.map((l) => /^Snapshot: (.+)$/.exec(l)?.[1]).find((p) => p !== undefined);
    if (snapshot === undefined) return fail('apply printed no "Snapshot:" line');

    narrate(
      4,
      `a change behind git's back: user ${OUT_OF_BAND.username} moves "${OUT_OF_BAND.task}" from ${OUT_OF_BAND.from} to ${OUT_OF_BAND.to}`,
      "through the automation server's REST API, as someone at the console would.",
    );
    out(await changeBehindGitsBack(production.automationUrl));

    narrate(
      5,
      "drift: what on the servers no longer matches git, and who changed it (the server's audit log).",
      'A blocked task stays listed until a person edits it in the admin UI.',
    );
    if (!(await cli(['drift', ...env], 2))) return 1;

    narrate(
      6,
      'restore: both servers back as they were before the apply, from the snapshot apply took;',
      'the state it replaces is saved first, and the result is read back and compared.',
    );
    const restored = await cli(['snapshot', 'restore', ...env, basename(snapshot), '--auto-approve'], 0, {
      head: 4,
      tail: 12,
      rest: 'what the restore changes, object by object; `mftops snapshot diff` shows it too',
      // The backup of the state it replaces, wherever the preview's length puts it.
      keep: /^Saved the state before the restore as /,
    });
    if (!restored) return 1;

    if (withEnvironments) {
      out('');
      out('==> Two environments: staging runs on an emulator of its own; the manifests are shared, and examples/staging/');
      out('    holds what differs (overlays, a folder). diff-env is the promotion view: what differs before staging goes to production;');
      out('    --offline compares the manifests only (without it, each server is also compared with its own manifests).');
      if (!(await cli(['diff-env', ...PROMOTION, '--offline'], 2))) return 1;
    }

    const log = [...emulators.values()].flatMap((e) => e.requestLog());
    const writes = log.filter((r) => !r.isTokenCall && r.method !== 'GET');
    out('');
    out(
      `Demo finished: ${log.length} requests to the emulator${emulators.size > 1 ? 's' : ''}, ${writes.length} of them writes; the scratch folder is removed.`,
    );
    out(
      'Next, in your own repository: `npx mftops init` (mftops.yaml, manifests/, the workflows), then `npx mftops import` to write manifests of what your servers hold.',
    );
    return 0;
  } finally {
    for (const emulator of emulators.values()) await emulator.close();
    rmSync(work, { recursive: true, force: true });
  }
}

/** A copy of the examples with their secret file beside them (as a checkout where apply runs has it), and mftops.yaml. */
function prepareWorkFolder(work: string, environments: readonly EnvironmentSettings[], emulators: ReadonlyMap<string, RunningEmulator>): void {
  const copy = join(work, 'examples');
  cpSync(examples, copy, { recursive: true });
  const secretFile = join(copy, DEMO_SECRET_FILE.path);
  mkdirSync(dirname(secretFile), { recursive: true });
  writeFileSync(secretFile, `${DEMO_SECRET_FILE.value}\n`, { mode: 0o600 });
  writeFileSync(
    join(work, 'mftops.yaml'),
    emulatorEnvironmentsYaml(
      environments.map((env) => {
        const emulator = emulators.get(env.name)!;
        return {
          environment: env.name,
          automationUrl: emulator.automationUrl,
          transferUrl: emulator.transferUrl,
          manifests: env.manifests.map((p) => relative(work, join(copy, relative(examples, p)))),
          scope: env.scope,
          ...withDefined({ transferHosts: env.transferHosts }),
        };
      }),
    ),
  );
}

function narrate(step: number, what: string, ...more: string[]): void {
  process.stdout.write(`\n==> ${step}/${STEPS} ${what}\n${more.map((l) => `    ${l}\n`).join('')}`);
}

function fail(message: string): number {
  process.stderr.write(`demo: ${message}\n`);
  return 1;
}

/**
 * Run one CLI command and print it with its output (whole, or an excerpt); its lines, or
 * undefined (after saying why on stderr) when it exited otherwise than expected or warned.
 */
async function runStep(args: readonly string[], expect: number, cwd: string, excerpt?: Excerpt): Promise<string[] | undefined> {
  process.stdout.write(`$ mftops ${args.join(' ')}\n`);
  const ran = await runCli(args, cwd);
  process.stdout.write(
    excerptOf(ran.lines, excerpt)
      .map((l) => `${l}\n`)
      .join(''),
  );
  if (ran.code !== expect) {
    fail(`mftops ${args[0]} exited ${ran.code}, expected ${expect}`);
    return undefined;
  }
  // The example estate is kept free of warnings; one here is a regression of the examples, shown above in full.
  const warning = ran.lines.find((l) => /\bwarning MF\d+|\d+ warnings?\b/.test(l));
  if (warning !== undefined) {
    fail(`mftops ${args[0]} warned: ${warning}`);
    return undefined;
  }
  return [...ran.lines];
}

function excerptOf(lines: readonly string[], excerpt: Excerpt | undefined): readonly string[] {
  if (excerpt === undefined || lines.length <= excerpt.head + excerpt.tail + 1) return lines;
  const middle = lines.slice(excerpt.head, lines.length - excerpt.tail);
  const kept = excerpt.keep ? middle.filter((l) => excerpt.keep!.test(l)) : [];
  return [
    ...lines.slice(0, excerpt.head),
    `    … ${middle.length - kept.length} more lines: ${excerpt.rest} …`,
    ...kept,
    ...lines.slice(lines.length - excerpt.tail),
  ];
}

/** The CLI as a user runs it; stdout and stderr as one stream of lines, in the order they came. */
function runCli(args: readonly string[], cwd: string): Promise<Ran> {
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, [join(root, 'bin/mftops.js'), ...args], {
      cwd,
      env: { ...process.env, ...DEMO_ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Every wait has a deadline: a step the CLI's own deadlines did not end is killed (exit 1 below).
      timeout: STEP_DEADLINE_MS,
    });
    const pending = { stdout: '', stderr: '' };
    const lines: string[] = [];
    const take = (stream: 'stdout' | 'stderr', chunk: Buffer): void => {
      const parts = (pending[stream] + chunk.toString('utf8')).split('\n');
      pending[stream] = parts.pop()!;
      lines.push(...parts);
    };
    child.stdout.on('data', (c: Buffer) => take('stdout', c));
    child.stderr.on('data', (c: Buffer) => take('stderr', c));
    child.on('close', (code) => {
      for (const rest of [pending.stdout, pending.stderr]) if (rest !== '') lines.push(rest);
      resolveRun({ code: code ?? 1, lines });
    });
  });
}

const STEP_DEADLINE_MS = 300_000;
const REQUEST_DEADLINE_MS = 30_000;

/** Edit a task through the automation REST API as another user, as the console would; the line to print. */
async function changeBehindGitsBack(automationUrl: string): Promise<string> {
  const api = `${automationUrl}/api/v1`;
  const fetch = (url: string, init: RequestInit = {}) => globalThis.fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_DEADLINE_MS) });
  const tokenAnswer = await fetch(`${api}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username: OUT_OF_BAND.username, password: OUT_OF_BAND.password }).toString(),
  });
  if (!tokenAnswer.ok) throw new Error(`${OUT_OF_BAND.username} could not sign in to ${automationUrl}: HTTP ${tokenAnswer.status}`);
  const { access_token: token } = (await tokenAnswer.json()) as { access_token: string };
  const auth = { authorization: `Bearer ${token}` };
  const list = (await (await fetch(`${api}/tasks`, { headers: auth })).json()) as { items: Array<{ ID: string; Name: string }> };
  const found = list.items.find((t) => t.Name === OUT_OF_BAND.task);
  if (found === undefined) throw new Error(`${OUT_OF_BAND.username} sees no task "${OUT_OF_BAND.task}" on ${automationUrl}`);
  // A task is replaced whole (PUT); the read answers it in the form a PUT takes, secrets suppressed (kept as stored).
  const task = (await (await fetch(`${api}/tasks/${found.ID}`, { headers: auth })).json()) as {
    Schedules: { Schedule: Array<{ Frequency: { Interval: Array<{ StartTime: string; EndTime: string }> } }> };
  };
  const interval = task.Schedules.Schedule[0]?.Frequency.Interval[0];
  if (interval?.StartTime !== OUT_OF_BAND.from) throw new Error(`"${OUT_OF_BAND.task}" does not run at ${OUT_OF_BAND.from} on ${automationUrl}`);
  interval.StartTime = OUT_OF_BAND.to;
  interval.EndTime = OUT_OF_BAND.to;
  const put = await fetch(`${api}/tasks/${found.ID}`, { method: 'PUT', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(task) });
  if (!put.ok) throw new Error(`${OUT_OF_BAND.username} could not edit "${OUT_OF_BAND.task}": HTTP ${put.status}`);
  return `PUT ${new URL(`${api}/tasks/${found.ID}`).pathname} as ${OUT_OF_BAND.username}: Frequency.Interval[0] ${OUT_OF_BAND.from} → ${OUT_OF_BAND.to}, HTTP ${put.status}`;
}

const args = process.argv.slice(2);
const unknown = args.filter((a) => a !== '--environments');
if (unknown.length > 0) {
  process.stderr.write(`demo: unknown option ${unknown.join(' ')}; the only option is --environments (adds staging and the promotion view)\n`);
  process.exitCode = 1;
} else {
  runDemo(args.includes('--environments')).then(
    (code) => (process.exitCode = code),
    (err: unknown) => {
      process.stderr.write(`demo: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
