import { isAbsolute, resolve } from 'node:path';
import { DEFAULTS, MAX_DELETES_RANGE, PARALLELISM_RANGE } from '../app/defaults.js';
import { wholeNumberOption } from '../app/environment.js';
import { isMftopsError, MftopsError } from '../errors.js';
import { withDefined } from '../with-defined.js';

/** The Action's `command` input: which mftops command the step runs. */
export type ActionCommand = 'validate' | 'plan' | 'apply' | 'drift';

export const ACTION_COMMANDS: readonly ActionCommand[] = ['validate', 'plan', 'apply', 'drift'];

/**
 * The inputs of `action.yml`, read and checked. Paths are absolute: relative ones in the
 * workflow are taken from `working-directory`, which is itself taken from the workspace.
 */
export interface ActionInputs {
  readonly command: ActionCommand;
  /** `environment` input; undefined means the only environment of the configuration. */
  readonly environment?: string;
  /** The configuration file (`config`, default `mftops.yaml` in the working directory). */
  readonly config: string;
  /** Manifest files or folders (`paths`, one per line); empty means the environment's `manifests`. */
  readonly paths: readonly string[];
  /**
   * `plan-file`. For `plan`: where to save the plan (default `mftops-plan-ENV.json` in the
   * working directory). For `apply`: the reviewed plan to apply; absent means plan, then apply.
   * With several reviewed plans (`planFiles`), the first.
   */
  readonly planFile?: string;
  /**
   * `plan-file`, one file per line. For `apply`: the reviewed plans of the pull requests merged
   * since the last successful apply; more than one when an apply was lost (cancelled, failed) and
   * this one catches up under the rule of `findUnreviewedChanges`. Empty when not given.
   */
  readonly planFiles: readonly string[];
  /**
   * `pull-requests` (apply): the merged pull requests whose reviewed plans are applied; each gets
   * the apply's result as one comment per environment, updated in place by later runs.
   */
  readonly pullRequests: readonly number[];
  /** Post the sticky PR comment (plan) / maintain the drift issue (drift). */
  readonly comment: boolean;
  /** Token for the GitHub REST calls; empty when the workflow passes none. */
  readonly githubToken: string;
  readonly workingDirectory: string;
  /** Apply only: the reviewed plan may delete / replace objects (the CLI's `--allow-delete` / `--allow-replace`). */
  readonly allowDelete: boolean;
  readonly allowReplace: boolean;
  /** Apply only: refuse a plan that deletes more objects than this (`max-deletes`, the CLI's `--max-deletes`). */
  readonly maxDeletes: number;
  /**
   * `parallelism`: requests in flight per server, reads and writes alike (the CLI's
   * `--parallelism`). Undefined means each use case's own default: reads of plan and drift
   * `DEFAULTS.readParallelism`, apply's writes `DEFAULTS.applyParallelism`.
   */
  readonly parallelism?: number;
  /**
   * `prune`, the CLI's `--prune` (true) / `--no-prune` (false) for plan, apply's plan and drift;
   * empty (undefined): the environment's prune, off when `paths` are not its manifests.
   */
  readonly prune?: boolean;
  /** `rotate-passwords`, the CLI's `--rotate-passwords` for plan and apply's plan: existing Users are sent their manifest's password again. */
  readonly rotatePasswords: boolean;
  /** `on-drift` (drift only): what the drift job does beyond the drift issue; default `report`. */
  readonly onDrift: OnDrift;
}

/**
 * What the drift job does when it finds drift, per environment (the workflow runs one step per
 * environment): `report` keeps the drift issue only; `adopt-pr` also proposes the adopted
 * manifests as one pull request per environment; `revert-plan` also posts the plan that would put
 * the servers back on the drift issue, saved as a plan file to apply through the normal path.
 */
export type OnDrift = 'report' | 'adopt-pr' | 'revert-plan';

export const ON_DRIFT_VALUES: readonly OnDrift[] = ['report', 'adopt-pr', 'revert-plan'];

/** A workflow passed an input the Action cannot use; the message names the input and the fix. */
export class ActionInputError extends MftopsError {}

/**
 * The value of one input as the runner passes it: `INPUT_` + the name upper-cased with spaces
 * as `_` — hyphens are kept (`INPUT_PLAN-FILE`) — trimmed.
 */
export function getInput(env: NodeJS.ProcessEnv, name: string): string {
  return (env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim();
}

/** Pull-request events, on which `comment` defaults to true. */
const PULL_REQUEST_EVENTS = new Set(['pull_request', 'pull_request_target']);

/** Read every input; `eventName` decides the default of `comment`; `workspace` anchors relative paths. */
export function readInputs(env: NodeJS.ProcessEnv, eventName: string | undefined, workspace: string): ActionInputs {
  const command = getInput(env, 'command');
  if (!isActionCommand(command)) {
    throw new ActionInputError(
      command === ''
        ? `input "command" is required: one of ${ACTION_COMMANDS.join(', ')}`
        : `input "command" must be one of ${ACTION_COMMANDS.join(', ')}, not "${command}"`,
    );
  }
  const workingDirectory = resolve(workspace, getInput(env, 'working-directory') || '.');
  const fromWorkdir = (p: string) => (isAbsolute(p) ? p : resolve(workingDirectory, p));
  const environment = getInput(env, 'environment');
  const planFiles = splitLines(getInput(env, 'plan-file')).map(fromWorkdir);
  if (planFiles.length > 1 && command !== 'apply')
    throw new ActionInputError(`input "plan-file" names ${planFiles.length} files: only apply takes several (the reviewed plans)`);
  const prune = readBoolean(env, 'prune', undefined);
  // apply: its result goes to the pull requests named by `pull-requests` (none: no comment).
  const commentDefault = command === 'drift' || command === 'apply' || (eventName !== undefined && PULL_REQUEST_EVENTS.has(eventName));
  const parallelism = readWholeNumber(env, 'parallelism', PARALLELISM_RANGE);
  return {
    command,
    ...(environment !== '' ? { environment } : {}),
    config: fromWorkdir(getInput(env, 'config') || 'mftops.yaml'),
    paths: splitLines(getInput(env, 'paths')).map(fromWorkdir),
    ...withDefined({ planFile: planFiles[0] }),
    planFiles,
    pullRequests: readPullRequests(env),
    comment: readBoolean(env, 'comment', commentDefault),
    githubToken: getInput(env, 'github-token'),
    workingDirectory,
    allowDelete: readBoolean(env, 'allow-delete', false),
    allowReplace: readBoolean(env, 'allow-replace', false),
    maxDeletes: readWholeNumber(env, 'max-deletes', MAX_DELETES_RANGE) ?? DEFAULTS.maxDeletes,
    rotatePasswords: readBoolean(env, 'rotate-passwords', false),
    onDrift: readOnDrift(env, command),
    ...withDefined({
      parallelism,
      prune,
    }),
  };
}

export function isActionCommand(value: string): value is ActionCommand {
  return (ACTION_COMMANDS as readonly string[]).includes(value);
}

/** A list input: one item per line (paths may hold spaces), blank lines and `#` comments ignored. */
export function splitLines(value: string): string[] {
  return value
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

/** `pull-requests`: numbers separated by spaces, commas or new lines, each written `12` or `#12`. */
function readPullRequests(env: NodeJS.ProcessEnv): number[] {
  const raw = getInput(env, 'pull-requests');
  const numbers: number[] = [];
  for (const word of raw.split(/[\s,]+/).filter((w) => w !== '')) {
    const n = /^#?([1-9][0-9]{0,9})$/.exec(word);
    if (n === null) throw new ActionInputError(`input "pull-requests" must list pull request numbers, not "${word}"`);
    if (!numbers.includes(Number(n[1]))) numbers.push(Number(n[1]));
  }
  return numbers;
}

/** `on-drift`: one of its values, and only for drift (elsewhere it would silently do nothing). */
function readOnDrift(env: NodeJS.ProcessEnv, command: ActionCommand): OnDrift {
  const raw = getInput(env, 'on-drift');
  if (raw === '') return 'report';
  if (!(ON_DRIFT_VALUES as readonly string[]).includes(raw))
    throw new ActionInputError(`input "on-drift" must be one of ${ON_DRIFT_VALUES.join(', ')}, not "${raw}"`);
  if (command !== 'drift' && raw !== 'report') throw new ActionInputError(`input "on-drift" is for command drift only, not ${command}`);
  return raw as OnDrift;
}

/** YAML 1.2 core booleans, as `core.getBooleanInput` reads them; empty means the default. */
function readBoolean<D extends boolean | undefined>(env: NodeJS.ProcessEnv, name: string, fallback: D): boolean | D {
  const raw = getInput(env, name);
  if (raw === '') return fallback;
  if (['true', 'True', 'TRUE'].includes(raw)) return true;
  if (['false', 'False', 'FALSE'].includes(raw)) return false;
  throw new ActionInputError(`input "${name}" must be true or false, not "${raw}"`);
}

/** A whole number in a range, as the CLI reads the same option; empty means the default (undefined). */
function readWholeNumber(env: NodeJS.ProcessEnv, name: string, range: { readonly min: number; readonly max: number }): number | undefined {
  const raw = getInput(env, name);
  if (raw === '') return undefined;
  try {
    return wholeNumberOption(`input "${name}"`, raw, range.min, range.max);
  } catch (err) {
    if (!isMftopsError(err)) throw err;
    throw new ActionInputError(err.message);
  }
}
