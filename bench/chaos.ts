/**
 * `npm run chaos`: the fault campaign of issues 9 and 23. Against the emulator at each fault rate
 * (500, 503, resets, answers held past the client timeout, faults after the write happened, bodies
 * cut short, a paged user list growing between its pages), with access
 * tokens that expire every 3 s and apply processes SIGKILLed at random points, it applies rounds
 * of mixed changes (task creates and updates, ACL creates and updates, folder creates, entry
 * updates and deletes) over and over until each round converges, and counts: runs, faults,
 * duplicates, lost changes, runs that ended in a clear error, runs to converge, SIGKILL
 * recoveries, and stack traces in any run's output (every plan and apply, killed ones too).
 * Fixed seed, bounded time. Writes `bench/chaos-results.json` (or `--out`).
 *
 *   node dist-bench/bench/chaos.js [--rates 0.3,0.5] [--rounds 12] [--min-runs 60] [--seed 9] [--budget-s 1800] [--kill-rate 0.35] [--out FILE]
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emulatorConfigYaml } from '../src/emulator/config-for.js';
import { createRandom } from '../src/emulator/server.js';
import { countRequests, loadSeedFile, startEmulator } from '../src/emulator/index.js';
import type { EmulatorSeed, RequestRecord, RunningEmulator } from '../src/emulator/index.js';
import { generateTaskManifest } from './generate-manifests.js';
import { ROOT } from './root.js';

const BIN = join(ROOT, 'bin', 'mftops.js');
const SEED = join(ROOT, 'examples', 'seed', 'emulator-seed.json');
const PASSWORDS = { automation: 'admin-Pa55!seed', transfer: 'xfer-admin-Pa55!seed' };
/** Client time limit per request; the emulator holds a slow answer longer than this. */
const CLIENT_TIMEOUT_MS = 1000;
const SLOW_ANSWER_MS = 1600;
const ACCESS_TTL_S = 3;
const BASE_TASKS = 16;
const MAX_RUNS_PER_ROUND = 12;
const RUN_TIMEOUT_MS = 120_000;
/**
 * Transfer users added to the seed so `/users` spans two pages at the client's 1,000 per page:
 * list churn needs a read between pages to land in.
 */
const BULK_USERS = 1_000;
/** Users list churn may add per round (the bound of "a list gaining entries while read"). */
const CHURN_PER_ROUND = 3;

/** Options of one campaign. */
export interface ChaosOptions {
  readonly rates: readonly number[];
  readonly rounds: number;
  readonly seed: number;
  /** Wall-clock budget of the whole campaign; rounds not started by then are reported as skipped. */
  readonly budgetMs: number;
  /** Probability that an apply run is SIGKILLed at a random moment. */
  readonly killRate: number;
  /** Apply runs the campaign must make over all rates to count (issue 23: at least 60). */
  readonly minRuns: number;
  readonly log?: (line: string) => void;
}

/** What a SIGKILLed run left behind, checked right after the kill. */
export interface KillRecord {
  readonly round: number;
  /** `after-start`: `afterMs` after the process started; `after-first-write`: after its ledger's first `ok`. */
  readonly trigger: 'after-start' | 'after-first-write';
  readonly afterMs: number;
  /** `before-writes`: no ledger yet (killed during plan, stale check or snapshot). */
  readonly phase: 'before-writes' | 'writing' | 'finished';
  /** Changes its ledger marks ok / failed / pending without an outcome (in flight at the kill). */
  readonly ledgerOk: number;
  readonly ledgerFailed: number;
  readonly ledgerInFlight: number;
  /** Ledger `ok` changes whose object is not on the server: must be 0 (the ledger tells the truth). */
  readonly okButMissing: readonly string[];
  /** The next run converged (exit 0) with no duplicate, after taking over the stale lock. */
  recovered?: boolean;
}

/**
 * Stack traces in what the runs printed (stdout and stderr of every plan and apply, killed runs
 * too): a user must never see one, whatever the server does.
 */
export interface StackTraceCount {
  /** Runs whose output held any of the three signs below. */
  readonly runs: number;
  /** Lines of a stack (`    at …`). */
  readonly frames: number;
  /** Node's crash banner (`Node.js v20…`), printed after an uncaught error. */
  readonly nodeBanners: number;
  /** `UnhandledPromiseRejection` (a promise rejected with nobody waiting for it). */
  readonly unhandledRejections: number;
  /** The first few, as `command: first lines`. */
  readonly samples: readonly string[];
}

/** The counts of one fault rate. */
export interface RateResult {
  readonly faultRate: number;
  readonly rounds: number;
  readonly roundsConverged: number;
  readonly roundsSkipped: number;
  readonly changesPlanned: number;
  readonly runs: number;
  readonly runsKilled: number;
  readonly faultsInjected: number;
  readonly faultsByKind: Readonly<Record<string, number>>;
  /** Token endpoint calls (grants and refreshes of the 3 s access tokens, revokes). */
  readonly tokenCalls: number;
  readonly duplicates: number;
  readonly lostChanges: number;
  /** Runs that exited 1 with a one-line `mftops: error:` or a JSON report naming what failed. */
  readonly clearErrors: number;
  /** The first few of those messages, as the user saw them. */
  readonly clearErrorSamples: readonly string[];
  /** Runs that ended otherwise (stack trace, internal error, hang, unknown exit): must be 0. */
  readonly unclearEnds: number;
  readonly unclearSamples: readonly string[];
  readonly stackTraces: StackTraceCount;
  /** Apply runs (kills included) each round needed to converge. */
  readonly runsToConverge: readonly number[];
  readonly lockTakeovers: number;
  readonly sigkillRecoveries: number;
  readonly kills: readonly KillRecord[];
  readonly unknownOutcomes: number;
  readonly confirmedByReread: number;
  readonly wallSeconds: number;
}

export interface ChaosResults {
  readonly generatedAt: string;
  readonly seed: number;
  readonly settings: Record<string, number | string>;
  readonly results: readonly RateResult[];
  /** Apply runs over all rates, and the campaign's minimum. */
  readonly runs: number;
  readonly minRuns: number;
  /** Stack traces over all rates. */
  readonly stackTraces: number;
  /** Every rate: 0 duplicates, 0 lost, 0 unclear ends, 0 stack traces, every round converged; at least `minRuns` runs. */
  readonly passed: boolean;
}

export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
  readonly timedOut: boolean;
}

/**
 * When to SIGKILL a run: `afterMs` from its start, or `afterMs` after a new ledger has a change
 * that took effect (`inWrites`: the kill lands among the writes, the case that matters most).
 */
interface KillPlan {
  readonly afterMs: number;
  readonly inWrites?: { readonly dir: string; readonly known: ReadonlySet<string> };
}

function runCli(args: readonly string[], cwd: string, env: Record<string, string>, killPlan?: KillPlan): Promise<CliRun> {
  return new Promise((done, fail) => {
    const started = Date.now();
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const hang = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, RUN_TIMEOUT_MS);
    let kill: NodeJS.Timeout | undefined;
    if (killPlan?.inWrites === undefined) {
      if (killPlan !== undefined) kill = setTimeout(() => child.kill('SIGKILL'), killPlan.afterMs);
    } else {
      const { dir, known } = killPlan.inWrites;
      const poll = (): void => {
        const fresh = ledgersIn(dir).filter((p) => !known.has(p));
        const writing = fresh.some((p) => readLedger(p).some((l) => l.event === 'change' && l.status === 'ok'));
        kill = writing ? setTimeout(() => child.kill('SIGKILL'), killPlan.afterMs) : setTimeout(poll, 10);
      };
      kill = setTimeout(poll, 10);
    }
    child.on('error', fail);
    child.on('close', (code, signal) => {
      clearTimeout(hang);
      if (kill) clearTimeout(kill);
      done({ code, signal, stdout, stderr, ms: Date.now() - started, timedOut });
    });
  });
}

const hasStackTrace = (text: string): boolean => /\n\s+at .+\(.+:\d+:\d+\)/.test(text) || /^\s+at file:\/\//m.test(text);

/** The signs of a crash in one run's output; all zero for a run that ended as mftops meant. */
export function stackTraceSigns(text: string): { frames: number; nodeBanners: number; unhandledRejections: number } {
  const count = (re: RegExp): number => text.match(re)?.length ?? 0;
  return { frames: count(/^ {4}at /gm), nodeBanners: count(/^Node\.js v\d/gm), unhandledRejections: count(/UnhandledPromiseRejection/g) };
}

/** Adds one run's signs to a rate's tally (`label` names the command in the sample). */
function tallyStackTraces(
  tally: { runs: number; frames: number; nodeBanners: number; unhandledRejections: number; samples: string[] },
  label: string,
  run: CliRun,
): void {
  const output = `${run.stdout}\n${run.stderr}`;
  const signs = stackTraceSigns(output);
  if (signs.frames + signs.nodeBanners + signs.unhandledRejections === 0) return;
  tally.runs++;
  tally.frames += signs.frames;
  tally.nodeBanners += signs.nodeBanners;
  tally.unhandledRejections += signs.unhandledRejections;
  if (tally.samples.length < 6) {
    const lines = output.split('\n').filter((l) => l.trim() !== '');
    const at = Math.max(0, lines.findIndex((l) => /^ {4}at |^Node\.js v\d|UnhandledPromiseRejection/.test(l)) - 1);
    tally.samples.push(
      `${label}: ${lines
        .slice(at, at + 5)
        .join(' | ')
        .slice(0, 500)}`,
    );
  }
}

// ---------------------------------------------------------------------------------- the estate

/** The example seed with BULK_USERS more transfer users, none of them in a group or an ACL. */
function chaosSeed(): EmulatorSeed {
  const seed = loadSeedFile(SEED);
  const bulk = Array.from({ length: BULK_USERS }, (_, i) => ({
    username: `bulk-user-${String(i).padStart(4, '0')}`,
    password: `bulk-${i}-Pa55!`,
    permission: 'User' as const,
  }));
  return { ...seed, transfer: { ...seed.transfer, users: [...(seed.transfer?.users ?? []), ...bulk] } };
}

const PERMS_A = ['TaskRun'];
const PERMS_B = ['TaskRun', 'TaskEditExisting'];

/** Round `r`'s manifests: every round creates tasks, edits others, flips ACLs, creates a folder and leaves the last round's unmanaged (its entries pruned). */
function roundManifests(r: number): Record<string, string> {
  const files: Record<string, string> = {};
  const tasks = BASE_TASKS + 4 * r;
  for (let i = 0; i < tasks; i++) {
    const text = generateTaskManifest(i);
    files[`manifests/task-${i}.yaml`] = i % 3 === r % 3 ? text.replace(/Description: (.*)/, `Description: $1 (round ${r})`) : text;
  }
  const perms = r % 2 === 0 ? PERMS_A : PERMS_B;
  const other = r % 2 === 0 ? PERMS_B : PERMS_A;
  files['manifests/acls.yaml'] = [
    acl('chaos-finance-auditors', 'Finance', 'Auditors', perms),
    acl('chaos-partners-finops', 'Partners', 'Finance Operators', other),
    acl('finance-operators', 'Finance', 'Finance Operators', perms),
  ].join('---\n');
  files['manifests/folders.yaml'] = [
    folder('/Distribution/Globex/Inbound', 'exact', [
      ['group', 'Globex Partners', r % 2 === 0 ? ['listFiles', 'writeFiles'] : ['listFiles', 'readFiles', 'writeFiles']],
    ]),
    folder('/Distribution/Globex/Outbound', 'exact', [['group', 'Globex Partners', ['listFiles', 'readFiles']]]),
    folder(
      `/Distribution/Globex/Chaos-${r}`,
      'exact',
      [
        ['group', 'Globex Partners', ['listFiles', 'readFiles']],
        ['user', 'bob', ['listFiles']],
      ],
      true,
    ),
  ].join('---\n');
  return files;
}

function acl(name: string, rg: string, ug: string, permissions: readonly string[]): string {
  return `apiVersion: mftops/v1\nkind: ResourceGroupAcl\nmetadata: { name: ${name} }\nspec: { resourceGroup: ${rg}, userGroup: ${ug}, permissions: [${permissions.join(', ')}] }\n`;
}

function folder(path: string, mode: string, entries: ReadonlyArray<readonly [string, string, readonly string[]]>, create = false): string {
  return [
    'apiVersion: mftops/v1',
    'kind: FolderPermissions',
    `metadata: { name: ${path} }`,
    'spec:',
    ...(create ? ['  createIfMissing: { inheritPermissions: None }'] : []),
    `  mode: ${mode}`,
    '  entries:',
    ...entries.flatMap(([k, who, p]) => [`    - ${k}: ${who}`, `      permissions: [${p.join(', ')}]`]),
    '',
  ].join('\n');
}

function writeWorkdir(dir: string, emulator: RunningEmulator, files: Record<string, string>): void {
  rmSync(join(dir, 'manifests'), { recursive: true, force: true });
  const config = [
    emulatorConfigYaml({ environment: 'chaos', automationUrl: emulator.automationUrl, transferUrl: emulator.transferUrl, manifests: ['manifests'] }).trimEnd(),
    '    scope: { taskGroups: [Nobody], folders: [/Distribution/Globex] }',
    '    prune: [FolderPermissions]',
    'snapshots: { dir: .mftops/snapshots, keep: 200 }',
    '',
  ].join('\n');
  for (const [rel, text] of Object.entries({ 'mftops.yaml': config, ...files })) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
}

// ------------------------------------------------------------------------------------ checks

/** Objects that exist more than once where one is meant: tasks by name, ACL pairs, folders by path, entries per folder. */
function countDuplicates(emulator: RunningEmulator): number {
  const dup = (keys: readonly string[]): number => {
    const seen = new Map<string, number>();
    for (const k of keys) seen.set(k, (seen.get(k) ?? 0) + 1);
    return [...seen.values()].reduce((n, c) => n + (c - 1), 0);
  };
  const s = emulator.state;
  return (
    dup(s.automation.tasks.map((t) => String(t['Name']).toLowerCase())) +
    dup(s.automation.acls.map((a) => `${a.ResourceGroupName}/${a.UserGroupName}`.toLowerCase())) +
    dup(s.transfer.folders.map((f) => f.path.toLowerCase())) +
    s.transfer.folders.reduce((n, f) => n + dup(f.acl.map((e) => `${e.type}:${e.id}`)), 0)
  );
}

/** Whether the object at a plan address is on the server (for a ledger's `ok` lines). */
function objectExists(emulator: RunningEmulator, address: string, action: string): boolean {
  const slash = address.indexOf('/');
  const kind = address.slice(0, slash);
  const name = address.slice(slash + 1);
  const s = emulator.state;
  switch (kind) {
    case 'Task':
      return s.automation.tasks.some((t) => String(t['Name']).toLowerCase() === name.toLowerCase()) === (action !== 'delete');
    case 'ResourceGroupAcl':
      return true; // identity is the pair inside the manifest; creates are checked by the duplicate and plan counts
    case 'FolderPermissions': {
      const f = s.transfer.folders.find((x) => x.path.toLowerCase() === `/${name}`.toLowerCase() || x.path.toLowerCase() === name.toLowerCase());
      return action === 'delete' ? f === undefined || f.acl.filter((e) => e.isEditable).length === 0 : f !== undefined;
    }
    default:
      return true;
  }
}

interface LedgerLine {
  readonly event: string;
  readonly address?: string;
  readonly action?: string;
  readonly status?: string;
}

function ledgersIn(dir: string): string[] {
  const root = join(dir, '.mftops', 'snapshots', 'chaos');
  let ids: string[];
  try {
    ids = readdirSync(root);
  } catch {
    return [];
  }
  return ids
    .map((id) => join(root, id, 'ledger.jsonl'))
    .filter((p) => {
      try {
        return statSync(p).isFile();
      } catch {
        return false;
      }
    });
}

function readLedger(path: string): LedgerLine[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as LedgerLine];
      } catch {
        return []; // a line cut by the kill
      }
    });
}

function inspectKill(emulator: RunningEmulator, round: number, afterMs: number, newLedgers: readonly string[], inWrites: boolean): KillRecord {
  const trigger = inWrites ? 'after-first-write' : 'after-start';
  if (newLedgers.length === 0) return { round, trigger, afterMs, phase: 'before-writes', ledgerOk: 0, ledgerFailed: 0, ledgerInFlight: 0, okButMissing: [] };
  const lines = newLedgers.flatMap(readLedger);
  const final = new Map<string, LedgerLine>();
  for (const l of lines) if (l.event === 'change' && l.address !== undefined) final.set(l.address, l);
  const all = [...final.values()];
  const ok = all.filter((l) => l.status === 'ok');
  return {
    round,
    trigger,
    afterMs,
    phase: lines.some((l) => l.event === 'end') ? 'finished' : 'writing',
    ledgerOk: ok.length,
    ledgerFailed: all.filter((l) => l.status === 'failed').length,
    ledgerInFlight: all.filter((l) => l.status === 'pending').length,
    okButMissing: ok.filter((l) => !objectExists(emulator, l.address!, l.action ?? '')).map((l) => l.address!),
  };
}

/** A run that did not exit 0 ended clearly when it said what went wrong in one line or in its report. */
export function classifyEnd(run: CliRun): 'ok' | 'clear' | 'unclear' {
  if (run.code === 0) return 'ok';
  if (run.timedOut || run.code !== 1) return 'unclear';
  if (hasStackTrace(run.stderr) || /internal error/.test(run.stderr)) return 'unclear';
  if (/^mftops: error: \S/m.test(run.stderr)) return 'clear';
  try {
    const report = JSON.parse(run.stdout) as {
      kind?: string;
      errors?: Array<{ message?: string }>;
      outcome?: string;
      results?: Array<{ status: string; error?: string }>;
      problems?: string[];
      verification?: { error?: string; unconverged?: unknown[] };
    };
    // --format json: a command that failed without a result of its own says why in its `mftops.error` document.
    if (report.kind === 'mftops.error' && (report.errors ?? []).length > 0 && report.errors!.every((e) => typeof e.message === 'string' && e.message !== ''))
      return 'clear';
    const failed = (report.results ?? []).filter((r) => r.status === 'failed');
    if (failed.length > 0 && failed.every((r) => typeof r.error === 'string' && r.error !== '')) return 'clear';
    if ((report.problems ?? []).length > 0 || report.verification?.error !== undefined || (report.verification?.unconverged ?? []).length > 0) return 'clear';
    if (report.outcome === 'stale') return 'clear';
  } catch {
    // not a report
  }
  return 'unclear';
}

/** What a clear failure told the user: the error line, or the first failed change of the report. */
function firstErrorLine(run: CliRun): string {
  const line = /^mftops: error: .*$/m.exec(run.stderr)?.[0];
  if (line !== undefined) return line.slice(0, 300);
  try {
    const report = JSON.parse(run.stdout) as {
      outcome?: string;
      results?: Array<{ address: string; status: string; error?: string }>;
      verification?: { error?: string };
    };
    const failed = (report.results ?? []).find((r) => r.status === 'failed');
    if (failed) return `${report.outcome ?? ''}: ${failed.address}: ${failed.error ?? ''}`.slice(0, 300);
    return `${report.outcome ?? ''}: ${report.verification?.error ?? 'not converged'}`.slice(0, 300);
  } catch {
    return run.stderr.slice(0, 300);
  }
}

// --------------------------------------------------------------------------------- campaign

async function runRate(rate: number, opts: ChaosOptions, deadline: number): Promise<RateResult> {
  const say = opts.log ?? (() => {});
  const started = Date.now();
  const random = createRandom(opts.seed * 1000 + Math.round(rate * 100));
  const emulator = await startEmulator({ seed: chaosSeed(), faultSeed: opts.seed, accessTtlSeconds: ACCESS_TTL_S, shortReads: true });
  const dir = mkdtempSync(join(tmpdir(), 'mftops-chaos-'));
  const env = {
    MFT_AUTOMATION_PASSWORD: PASSWORDS.automation,
    MFT_TRANSFER_PASSWORD: PASSWORDS.transfer,
    MFTOPS_HTTP_TIMEOUT_MS: String(CLIENT_TIMEOUT_MS),
    ...Object.fromEntries([0, 1, 2, 3, 4].map((i) => [`GEN_TOKEN_${i}`, `chaos-token-${i}`])),
    ...Object.fromEntries([0, 1, 2].map((i) => [`GEN_PASSWORD_${i}`, `chaos-password-${i}`])),
  };
  const applyArgs = ['apply', '--auto-approve', '--allow-delete', '--max-deletes', '50', '--format', 'json', '-q'];
  const log: RequestRecord[] = [];
  const counts = { runs: 0, killed: 0, clear: 0, unclear: 0, takeovers: 0, unknown: 0, confirmed: 0, lost: 0, planned: 0 };
  const unclearSamples: string[] = [];
  const clearSamples: string[] = [];
  const stacks = { runs: 0, frames: 0, nodeBanners: 0, unhandledRejections: 0, samples: [] as string[] };
  const runsToConverge: number[] = [];
  const kills: KillRecord[] = [];
  let roundsDone = 0;
  let roundsConverged = 0;
  try {
    for (let r = 1; r <= opts.rounds; r++) {
      if (Date.now() > deadline) break;
      roundsDone++;
      writeWorkdir(dir, emulator, roundManifests(r));
      const planned = await runCli(['plan', '--format', 'json', '-q'], dir, env);
      tallyStackTraces(stacks, `round ${r} plan`, planned);
      try {
        const summary = (JSON.parse(planned.stdout) as { summary: Record<string, number> }).summary;
        counts.planned += (summary['create'] ?? 0) + (summary['update'] ?? 0) + (summary['delete'] ?? 0) + (summary['replace'] ?? 0);
      } catch {
        throw new Error(`round ${r}: the fault-free plan failed: ${planned.stderr.trim()}`);
      }
      emulator.configure({ faultRate: rate, slowResponseMs: SLOW_ANSWER_MS, churnFaults: CHURN_PER_ROUND });
      let runs = 0;
      let converged = false;
      const pendingKills: KillRecord[] = [];
      let killedInRound = false;
      while (!converged && runs < MAX_RUNS_PER_ROUND && Date.now() < deadline + 60_000) {
        runs++;
        counts.runs++;
        const before = new Set(ledgersIn(dir));
        // The first run of every round is killed at a random point (the next one again if it ended
        // first: a loaded machine, or a clear error before the time); later ones with killRate, at
        // most two kills in a row, so each round keeps moving.
        // Odd rounds kill at a random time (often while planning), even rounds among the writes.
        const killNow = !killedInRound || (random() < opts.killRate && pendingKills.length < 2);
        const kill: KillPlan | undefined = !killNow
          ? undefined
          : r % 2 === 1
            ? { afterMs: Math.round(500 + random() * 8000) }
            : { afterMs: Math.round(random() * 150), inWrites: { dir, known: before } };
        const run = await runCli(applyArgs, dir, env, kill);
        tallyStackTraces(stacks, `round ${r} apply ${runs}${run.signal === 'SIGKILL' ? ' (killed)' : ''}`, run);
        if (/took over a stale apply lock/.test(run.stderr)) counts.takeovers++;
        if (run.signal === 'SIGKILL' && !run.timedOut) {
          killedInRound = true;
          counts.killed++;
          const fresh = ledgersIn(dir).filter((p) => !before.has(p));
          const rec = inspectKill(emulator, r, kill?.afterMs ?? 0, fresh, kill?.inWrites !== undefined);
          kills.push(rec);
          pendingKills.push(rec);
          say(
            `  rate ${rate} round ${r} run ${runs}: SIGKILL ${kill?.inWrites ? `${kill.afterMs} ms after its first write` : `after ${kill?.afterMs} ms`} (${rec.phase}; ledger ok ${rec.ledgerOk}, in flight ${rec.ledgerInFlight})`,
          );
          continue;
        }
        try {
          const report = JSON.parse(run.stdout) as { stats?: { unknownOutcomes: number; confirmedByReread: number } };
          counts.unknown += report.stats?.unknownOutcomes ?? 0;
          counts.confirmed += report.stats?.confirmedByReread ?? 0;
        } catch {
          // no report: an error line instead
        }
        const end = classifyEnd(run);
        say(`  rate ${rate} round ${r} run ${runs}: exit ${run.code} (${end}) in ${run.ms} ms`);
        if (end === 'ok') converged = true;
        else if (end === 'clear') {
          counts.clear++;
          if (clearSamples.length < 6) clearSamples.push(firstErrorLine(run));
        } else {
          counts.unclear++;
          if (unclearSamples.length < 5)
            unclearSamples.push(`exit ${run.code}${run.timedOut ? ' (hang)' : ''}: stderr: ${run.stderr.slice(0, 400)} stdout: ${run.stdout.slice(0, 600)}`);
        }
        if (end === 'ok') {
          const clean = countDuplicates(emulator) === 0;
          for (const k of pendingKills.splice(0)) k.recovered = clean;
        }
      }
      for (const entry of emulator.requestLog()) log.push(entry);
      emulator.resetRequestLog();
      emulator.configure({ faultRate: 0, slowResponseMs: 0, churnFaults: 0 });
      runsToConverge.push(runs);
      // The truth, without faults: a fresh plan must show nothing left to do.
      const check = await runCli(['plan', '--format', 'json', '-q'], dir, env);
      tallyStackTraces(stacks, `round ${r} check plan`, check);
      try {
        const summary = (JSON.parse(check.stdout) as { summary: Record<string, number> }).summary;
        const left = (summary['create'] ?? 0) + (summary['update'] ?? 0) + (summary['delete'] ?? 0) + (summary['replace'] ?? 0);
        if (converged) counts.lost += left;
        if (converged && left === 0) roundsConverged++;
      } catch {
        throw new Error(`round ${r}: the fault-free check plan failed: ${check.stderr.trim()}`);
      }
      emulator.resetRequestLog();
    }
    const faultsByKind: Record<string, number> = {};
    for (const e of log) if (e.fault) faultsByKind[e.fault] = (faultsByKind[e.fault] ?? 0) + 1;
    return {
      faultRate: rate,
      rounds: roundsDone,
      roundsConverged,
      roundsSkipped: opts.rounds - roundsDone,
      changesPlanned: counts.planned,
      runs: counts.runs,
      runsKilled: counts.killed,
      faultsInjected: countRequests(log).faults,
      faultsByKind,
      tokenCalls: countRequests(log).tokenCalls,
      duplicates: countDuplicates(emulator),
      lostChanges: counts.lost,
      clearErrors: counts.clear,
      clearErrorSamples: clearSamples,
      unclearEnds: counts.unclear,
      unclearSamples,
      stackTraces: stacks,
      runsToConverge,
      lockTakeovers: counts.takeovers,
      sigkillRecoveries: kills.filter((k) => k.recovered === true).length,
      kills,
      unknownOutcomes: counts.unknown,
      confirmedByReread: counts.confirmed,
      wallSeconds: Math.round((Date.now() - started) / 100) / 10,
    };
  } finally {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runChaos(opts: ChaosOptions): Promise<ChaosResults> {
  const deadline = Date.now() + opts.budgetMs;
  const results: RateResult[] = [];
  for (const rate of opts.rates) {
    opts.log?.(`fault rate ${rate}:`);
    // Each rate gets its share of what is left of the budget.
    const share = Date.now() + (deadline - Date.now()) / (opts.rates.length - results.length);
    results.push(await runRate(rate, opts, share));
  }
  const runs = results.reduce((n, r) => n + r.runs, 0);
  const stackTraces = results.reduce((n, r) => n + r.stackTraces.runs, 0);
  const passed =
    runs >= opts.minRuns &&
    stackTraces === 0 &&
    results.every(
      (r) =>
        r.duplicates === 0 && r.lostChanges === 0 && r.unclearEnds === 0 && r.roundsConverged === r.rounds && r.kills.every((k) => k.okButMissing.length === 0),
    );
  return {
    generatedAt: new Date().toISOString(),
    seed: opts.seed,
    settings: {
      clientTimeoutMs: CLIENT_TIMEOUT_MS,
      slowAnswerMs: SLOW_ANSWER_MS,
      accessTokenTtlSeconds: ACCESS_TTL_S,
      killRate: opts.killRate,
      roundsPerRate: opts.rounds,
      maxRunsPerRound: MAX_RUNS_PER_ROUND,
      budgetSeconds: Math.round(opts.budgetMs / 1000),
      faultKinds: 'error-500, error-503, reset, write-then-500, write-then-reset, slow-answer, short-read, list-churn',
      transferUsers: `seed + ${BULK_USERS} (two pages of /users)`,
      listChurnPerRound: CHURN_PER_ROUND,
    },
    results,
    runs,
    minRuns: opts.minRuns,
    stackTraces,
    passed,
  };
}

function argValue(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

async function main(argv: readonly string[]): Promise<void> {
  const rates = (argValue(argv, '--rates') ?? '0.3,0.5').split(',').map(Number);
  const out = resolve(argValue(argv, '--out') ?? join(ROOT, 'bench', 'chaos-results.json'));
  const results = await runChaos({
    rates,
    rounds: Number(argValue(argv, '--rounds') ?? 12),
    minRuns: Number(argValue(argv, '--min-runs') ?? 60),
    seed: Number(argValue(argv, '--seed') ?? 9),
    budgetMs: Number(argValue(argv, '--budget-s') ?? 1800) * 1000,
    killRate: Number(argValue(argv, '--kill-rate') ?? 0.35),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  for (const r of results.results) {
    process.stdout.write(
      `fault rate ${r.faultRate}: ${r.runs} runs (${r.runsKilled} SIGKILLed), ${r.faultsInjected} faults, ${r.duplicates} duplicates, ${r.lostChanges} lost, ` +
        `${r.clearErrors} clear errors, ${r.unclearEnds} unclear, runs to converge ${r.runsToConverge.join('/')}, ${r.sigkillRecoveries} SIGKILL recoveries, ` +
        `${r.stackTraces.runs} runs with a stack trace (${r.stackTraces.frames} frames, ${r.stackTraces.nodeBanners} Node.js banners, ${r.stackTraces.unhandledRejections} unhandled rejections), ` +
        `faults ${Object.entries(r.faultsByKind)
          .map(([k, n]) => `${k} ${n}`)
          .join(', ')}\n`,
    );
    for (const sample of r.stackTraces.samples) process.stdout.write(`  stack trace: ${sample}\n`);
  }
  if (results.runs < results.minRuns) process.stdout.write(`only ${results.runs} apply runs, fewer than ${results.minRuns}: raise --budget-s or --rounds\n`);
  process.stdout.write(`${results.passed ? 'PASSED' : 'FAILED'}; results in ${out}\n`);
  process.exitCode = results.passed ? 0 : 1;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  void main(process.argv.slice(2));
}
