import { isDeepStrictEqual } from 'node:util';
import type { EmulatorSeed } from '../src/emulator/index.js';
import type { JsonObject } from '../src/emulator/json.js';
import { DAYS, GROUPS, HOSTS, SCRIPTS, hhmm, pick } from './generate-manifests.js';

/**
 * The POST body of generated task `i` (generate-manifests.ts) as the planner makes it, written out
 * by hand: planning 231,000 bodies through the planner took minutes and held them all in the bench
 * process (issue 29); this takes microseconds each. Secret references are already the stand-in
 * value apply would send. `checkTaskBodies` holds it to the planner on a sample in every bench run.
 */
export interface TaskRefs {
  /** Host name → the ID and the type the planner puts into a step. */
  readonly hosts: ReadonlyMap<string, { readonly id: string; readonly type: string }>;
  /** Script name (custom or standard) → ID. */
  readonly scripts: ReadonlyMap<string, string>;
  /** Date list name → ID. */
  readonly dateLists: ReadonlyMap<string, string>;
}

/** What the stand-in of a secret reference is (as run-bench's `standIns`). */
export const SECRET_STAND_IN = 'bench-secret-value';

/** The hosts, scripts and date lists of `seed` that generated tasks name. */
export function taskRefsOf(seed: EmulatorSeed): TaskRefs {
  const a = seed.automation as { hosts?: JsonObject[]; customScripts?: JsonObject[]; standardScripts?: JsonObject[]; dateLists?: JsonObject[] };
  const hosts = new Map<string, { id: string; type: string }>();
  for (const wrapped of a.hosts ?? []) {
    for (const [type, h] of Object.entries(wrapped)) {
      const host = h as JsonObject;
      hosts.set(String(host['Name']), { id: String(host['ID']), type });
    }
  }
  const named = (list: readonly JsonObject[] | undefined) => (list ?? []).map((o) => [String(o['Name']), String(o['ID'])] as const);
  return {
    hosts,
    scripts: new Map([...named(a.customScripts), ...named(a.standardScripts)]),
    dateLists: new Map(named(a.dateLists)),
  };
}

const need = <T>(value: T | undefined, what: string): T => {
  if (value === undefined) throw new Error(`bench: the seed has no ${what}`);
  return value;
};

/** The body of generated task `i`, key for key in the planner's order. */
export function generatedTaskBody(i: number, refs: TaskRefs): JsonObject {
  const from = need(refs.hosts.get(pick(HOSTS, i)), `host ${pick(HOSTS, i)}`);
  const to = need(refs.hosts.get(pick(HOSTS, i + 3)), `host ${pick(HOSTS, i + 3)}`);
  const start = (i * 37) % (24 * 60);
  const days = DAYS.filter((_, d) => (i >> d) % 2 === 0 || d === i % 7);
  const schedule: JsonObject[] = [
    {
      Days: { DayOfWeek: days },
      Frequency: { Interval: [{ StartTime: hhmm(start), EndTime: hhmm(start + (i % 2) * 120) }] },
      ...(i % 6 === 0 ? { FailIfNoSuccessInSched: 1, Multi: 0 } : {}),
    },
  ];
  if (i % 9 === 0) {
    const id = need(refs.dateLists.get('Bank Holidays 2026'), 'date list Bank Holidays 2026');
    schedule.push({ DateListRef: [{ DateListID: id }], Frequency: { Interval: [{ StartTime: '23:30', EndTime: '23:30' }] } });
  }
  const source: JsonObject = {
    HostID: from.id,
    Type: from.type,
    Path: `/out/${i % 17}`,
    FileMask: `*.${pick(['csv', 'xml', 'edi', 'json'], i)}`,
    DeleteOrig: i % 3,
    ...(i % 3 === 2 ? { RenameTo: '/out/done/[OrigName]', DelRename: 1 } : {}),
    RetryCount: i % 32001,
    RescanSecs: i % 1000,
    ...(i % 5 === 0 ? { UseDefUser: 0, Username: 'svc-gen', Password: SECRET_STAND_IN } : {}),
    ...(i % 7 === 0 ? { Criteria: { Or: { comp: [{ a: '[OrigName]', b: '*.tmp', test: 'NOTMASK' }] } } } : {}),
  };
  const steps: JsonObject[] = [{ Source: source }];
  if (i % 2 === 0) steps.push({ Process: { ScriptID: need(refs.scripts.get(pick(SCRIPTS, i)), `script ${pick(SCRIPTS, i)}`), Run: 'per-file' } });
  steps.push({ Destination: { HostID: to.id, Type: to.type, Path: `/in/${i % 13}`, OverwriteOrig: i % 2 } });
  return {
    Name: `Generated task ${String(i).padStart(5, '0')}`,
    Active: i % 3 === 0 ? 0 : 1,
    Group: [pick(GROUPS, i)],
    Info: { Description: `Generated transfer ${i} from ${pick(HOSTS, i)} to ${pick(HOSTS, i + 3)}` },
    ...(i % 4 === 0 ? { Parameters: { Batch: { value: String(i) }, Token: { value: SECRET_STAND_IN, DisplayValue: '(suppressed)' } } } : {}),
    Schedules: { Schedule: schedule },
    steps,
  };
}

/** Indices to check against the planner: the first `head` (every shape) and `spread` more up to `count`. */
export function sampleIndices(count: number, head = 1000, spread = 1000): number[] {
  const out = new Set<number>();
  for (let i = 0; i < Math.min(head, count); i++) out.add(i);
  if (count > head) for (let k = 0; k < spread; k++) out.add(head + Math.floor(((count - head) * k) / spread));
  return [...out];
}

/**
 * The indices of `planned` (planner bodies by index) whose hand-written body differs, in value or
 * in key order (the emulator serves keys in the order it stored them).
 */
export function mismatchedBodies(planned: ReadonlyMap<number, JsonObject>, refs: TaskRefs): number[] {
  const bad: number[] = [];
  for (const [i, body] of planned) {
    const mine = generatedTaskBody(i, refs);
    if (!isDeepStrictEqual(mine, body) || JSON.stringify(mine) !== JSON.stringify(body)) bad.push(i);
  }
  return bad;
}
