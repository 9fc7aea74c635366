import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { AppContext, EnvironmentChoice } from '../app/context.js';
import { DEFAULTS } from '../app/defaults.js';
import type { AppEvent } from '../app/events.js';
import { loadConfig, selectEnvironment } from '../config/load-config.js';
import type { Diagnostic } from '../diagnostics.js';
import { diagnosticsOf, isMftopsError, systemError, userMessageOf } from '../errors.js';
import { createLogger } from '../log.js';
import { hasChanges, summarize, type Plan } from '../plan/model.js';
import { readPlanFile } from '../app/plan-file.js';
import { renderApplyPhase, renderChangeResultLine, renderApplySummaryJson, renderApplySummaryText } from '../render/apply-summary.js';
import { errorLines, githubAnnotations, summaryLine as diagnosticsSummary } from '../render/diagnostics.js';
import type { DiagnosticsReport } from '../render/diagnostics.js';
import { NO_CHANGES, planSentence } from '../render/plan-common.js';
import { policyAnnotations, policyDenyLines } from '../render/policy.js';
import { failedChangeAnnotations } from './apply-annotations.js';
import { comparePlans, findUnreviewedChanges } from './compare-plans.js';
import { postApplyResult, type ApplyResult, type ApplyResultStatus } from './apply-comment.js';
import { applyExitCode, type ApplyOutcome } from '../apply/model.js';
import { readGithubContext, type GithubContext } from './context.js';
import { createGithubApi, type GithubApi, type Issue } from './github-api.js';
import { renderAdoptCommitMessage, renderAdoptPrBody, renderAdoptTitle, syncAdoptionPullRequest, type AdoptionProposal } from './adopt-pr.js';
import { adoptedTreeFiles } from './adopted-files.js';
import { renderAdoptionText } from '../render/adoption-text.js';
import type { DriftReport } from '../drift/model.js';
import { readInputs, type ActionInputs } from './inputs.js';
import {
  renderApplySummary,
  renderFailureSummary,
  renderMismatchSummary,
  renderPlanForSummary,
  renderPolicyRefusalSummary,
  renderValidateSummary,
} from './job-summary.js';
import { GITHUB_COMMENT_LIMIT, planMarker, renderPlanComment, renderPlanFailureComment, upsertStickyComment } from './pr-comment.js';
import type { Runner } from './workflow-commands.js';
import { syncDriftIssue, type DriftFinding } from './drift-issue.js';
import { renderPlanText } from '../render/plan-text.js';
import { driftExitCode } from '../drift/model.js';
import { renderDriftMarkdown } from '../render/drift-markdown.js';
import { renderDriftText } from '../render/drift-text.js';
import { driftSentence } from '../render/drift-common.js';
import { withDefined } from '../with-defined.js';
import { escapeMd } from '../render/text.js';

/**
 * The Action's job: read inputs and the run's context, run one use case of the application layer
 * (src/app: the same the CLI runs, so the two cannot disagree), then tell GitHub about its result
 * — outputs, job summary, annotations, the sticky PR comment, the drift issue.
 */
export interface ActionEnvironment {
  /** The step's environment: `INPUT_*`, `GITHUB_*`, and the credentials the workflow put in `env:`. */
  readonly env: NodeJS.ProcessEnv;
  /** The process's folder (the workspace on a runner). */
  readonly cwd: string;
  readonly runner: Runner;
  /** Raw log text (a command's stderr: progress and warnings). */
  readonly log: (text: string) => void;
}

/**
 * mftops's exit code: 0 success (no changes / in sync / applied), 2 changes or drift, 1 error.
 * The entry point fails the step on 1 only; 2 is in the `exitcode` output.
 */
export async function runAction(a: ActionEnvironment): Promise<number> {
  const { runner } = a;
  let context: GithubContext;
  let inputs: ActionInputs;
  try {
    context = readGithubContext(a.env, a.cwd);
    inputs = readInputs(a.env, context.eventName, context.workspace);
  } catch (err) {
    return fail(runner, [messageOf(err)], 'mftops');
  }
  // Paths in annotations and plans are relative to the repository root, where GitHub expects them.
  const cwd = isInside(inputs.workingDirectory, context.workspace) ? context.workspace : inputs.workingDirectory;
  const choice: EnvironmentChoice = { configFile: inputs.config, ...withDefined({ environment: inputs.environment }) };
  const step: Step = { a, inputs, context, choice, cwd, ctx: actionContext(a, cwd) };
  try {
    switch (inputs.command) {
      case 'validate':
        return await validateStep(step);
      case 'plan':
        return await planStep(step);
      case 'apply':
        return await applyStep(step);
      case 'drift':
        return await driftStep(step);
      default: {
        const never: never = inputs.command;
        throw new Error(`unknown command ${String(never)}`);
      }
    }
  } catch (err) {
    if (userMessageOf(err) === undefined && err instanceof Error && err.stack !== undefined) a.log(`${err.stack}\n`);
    const diagnostics = diagnosticsOf(err);
    if (diagnostics.length > 0) return fail(runner, [], `mftops ${inputs.command}`, annotateProblems(step, diagnostics));
    return fail(runner, [messageOf(err)], `mftops ${inputs.command}`);
  }
}

interface Step {
  readonly a: ActionEnvironment;
  readonly inputs: ActionInputs;
  readonly context: GithubContext;
  readonly choice: EnvironmentChoice;
  /** The folder use cases run in: relative paths in annotations and plans are taken from it. */
  readonly cwd: string;
  readonly ctx: AppContext;
}

/**
 * The use cases' context on a runner: request logs with RUNNER_DEBUG, warnings and notes as log
 * lines, apply's phases and per-change lines as the CLI prints them; no progress line (a log is not
 * a terminal).
 */
function actionContext(a: ActionEnvironment, cwd: string): AppContext {
  const write = (line: string): void => a.log(`${line}\n`);
  const emit = (event: AppEvent): void => {
    switch (event.kind) {
      case 'warning':
        write(`mftops: warning: ${event.message}`);
        return;
      case 'note':
        write(`mftops: note: ${event.message}`);
        return;
      case 'apply-phase':
        write(renderApplyPhase(event.phase, event.writes, event.parallelism));
        return;
      case 'change-result':
        write(renderChangeResultLine(event.result));
        return;
      case 'progress':
      case 'planned':
      case 'abandoned':
        return;
      default: {
        const never: never = event;
        throw new Error(`unknown event ${JSON.stringify(never)}`);
      }
    }
  };
  return { cwd, env: a.env, logger: createLogger(a.env['RUNNER_DEBUG'] === '1' ? 'verbose' : 'normal', a.log), emit };
}

// ------------------------------------------------------------------------------------ validate

async function validateStep(s: Step): Promise<number> {
  const { validateManifests } = await import('../app/validate.js');
  // `paths` with no configuration file (the `config` input defaults to mftops.yaml): the paths alone, as `mftops validate PATH…`.
  const { configFile, ...rest } = s.choice;
  const choice = s.inputs.paths.length > 0 && configFile !== undefined && !existsSync(configFile) ? rest : s.choice;
  const report = await validateManifests({ ...choice, ...(s.inputs.paths.length > 0 ? { paths: s.inputs.paths } : {}) }, s.ctx);
  const ok = !report.diagnostics.some((d) => d.severity === 'error');
  annotate(s, report);
  const line = diagnosticsSummary(report);
  s.a.runner.log(line);
  setOutputs(s.a.runner, { exitcode: ok ? 0 : 1, summary: line });
  appendSummary(s, renderValidateSummary(ok, line));
  if (!ok) s.a.runner.annotate('error', `mftops validate: ${line}`);
  return ok ? 0 : 1;
}

/** The diagnostics as annotations: the runner reads workflow commands from the log. */
function annotate(s: Step, report: DiagnosticsReport): void {
  for (const line of githubAnnotations(report, { cwd: s.cwd })) s.a.log(`${line}\n`);
}

/** A command that could not start (its configuration is wrong): its diagnostics annotated; their error lines for the summary. */
function annotateProblems(s: Step, diagnostics: readonly Diagnostic[]): string[] {
  const report = { diagnostics, manifestCount: 0 };
  annotate(s, report);
  return errorLines(report, s.cwd);
}

// ---------------------------------------------------------------------------------------- plan

async function planStep(s: Step): Promise<number> {
  const environment = environmentName(s);
  const planFile = s.inputs.planFile ?? resolve(s.inputs.workingDirectory, `mftops-plan-${fileSafe(environment)}.json`);
  const made = await makePlan(s, planFile);
  if (made.plan === undefined) {
    setOutputs(s.a.runner, { exitcode: 1, summary: `mftops plan failed for ${environment}` });
    appendSummary(s, renderFailureSummary(`mftops plan: ${environment}`, made.problems));
    for (const p of made.problems.filter((p) => !made.annotated.has(p))) s.a.runner.annotate('error', p);
    if (s.inputs.comment) await postComment(s, environment, renderPlanFailureComment(environment, made.problems, origin(s)));
    return 1;
  }
  const plan = made.plan;
  const changes = hasChanges(plan);
  await logPlanText(s, plan);
  annotatePolicy(s, plan);
  // A deny fails the check run: the plan is shown (summary, comment) but was not saved.
  const denies = made.denied ? policyDenyLines(plan.policy) : [];
  const exitcode = made.denied ? 1 : changes ? 2 : 0;
  setOutputs(s.a.runner, {
    exitcode,
    'has-changes': changes,
    ...(made.denied ? {} : { 'plan-file': planFile }),
    summary: made.denied
      ? `refused by ${denies.length === 1 ? 'a deny policy' : `${denies.length} deny policy violations`}: ${denies[0] ?? ''}`
      : summaryLine(plan),
  });
  // One policy section, in the plan's markdown under its title (the summary is the comment's twin).
  appendPlanSummary(s, plan, made.diagnostics);
  if (s.inputs.comment) await postComment(s, plan.environment, renderPlanComment(plan, origin(s), undefined, made.diagnostics));
  return exitcode;
}

/** Each policy violation as an annotation at its manifest line: an error per deny, a warning per warn. */
function annotatePolicy(s: Step, plan: Pick<Plan, 'policy'>): void {
  for (const line of policyAnnotations(plan.policy)) s.a.log(`${line}\n`);
}

interface MadePlan {
  /** The plan; with `denied`, one a deny policy refuses, which was not saved. */
  readonly plan?: Plan;
  readonly denied?: boolean;
  /** Why there is no plan, one line each. */
  readonly problems: string[];
  /** Problems already shown as annotations (the diagnostics). */
  readonly annotated: Set<string>;
  /** The plan's diagnostics (warnings such as MF414, which the comment's verdict shows). */
  readonly diagnostics?: readonly Diagnostic[];
}

/** The plan of the step's manifests, saved to `out`; the diagnostics as annotations. */
async function makePlan(s: Step, out: string, targets?: readonly string[]): Promise<MadePlan> {
  const { planEnvironment } = await import('../app/plan.js');
  let result: Awaited<ReturnType<typeof planEnvironment>>;
  try {
    result = await planEnvironment(
      {
        ...s.choice,
        paths: s.inputs.paths,
        out,
        parallelism: s.inputs.parallelism ?? DEFAULTS.readParallelism,
        ...pruneOption(s),
        ...(s.inputs.rotatePasswords ? { rotatePasswords: true } : {}),
        ...withDefined({ targets }),
      },
      s.ctx,
    );
  } catch (err) {
    if (!isMftopsError(err)) throw err;
    const diagnostics = diagnosticsOf(err);
    if (diagnostics.length > 0) {
      const problems = annotateProblems(s, diagnostics);
      return { problems, annotated: new Set(problems) };
    }
    return { problems: [err.message], annotated: new Set() };
  }
  annotate(s, result.diagnostics);
  if (result.status === 'invalid') {
    const errors = errorLines(result.diagnostics, s.cwd);
    return { problems: errors.length > 0 ? errors : ['mftops plan failed (see the log)'], annotated: new Set(errors) };
  }
  const diagnostics = result.diagnostics.diagnostics;
  if (result.status === 'denied') return { plan: result.plan, denied: true, problems: [], annotated: new Set(), diagnostics };
  return { plan: result.plan, problems: [], annotated: new Set(), diagnostics };
}

async function logPlanText(s: Step, plan: Plan): Promise<void> {
  await s.a.runner.group(`Plan for ${plan.environment}: ${summaryLine(plan)}`, async () => s.a.runner.log(renderPlanText(plan, { color: false })));
}

function appendPlanSummary(s: Step, plan: Plan, diagnostics: readonly Diagnostic[] = []): void {
  const room = s.a.runner.summaryRoom();
  if (room < 4096) {
    s.a.runner.annotate('warning', 'the job summary is full: the plan is only in the log and the plan file');
    return;
  }
  const hint = s.context.runUrl === undefined ? 'the plan file' : `the plan file of [this workflow run](${s.context.runUrl})`;
  appendSummary(s, renderPlanForSummary(plan, room - 64, hint, diagnostics));
}

function summaryLine(plan: Plan): string {
  return hasChanges(plan) ? planSentence(summarize(plan.changes)) : NO_CHANGES;
}

// --------------------------------------------------------------------------------------- apply

async function applyStep(s: Step): Promise<number> {
  const environment = environmentName(s);
  let outcome: ApplyStepOutcome;
  try {
    outcome = await applyReviewed(s, environment);
  } catch (err) {
    // The failure reaches the merged pull requests too, then fails the step as any error does.
    if (isMftopsError(err))
      await postApplyComment(s, {
        environment,
        status: 'refused',
        headline: `Nothing was applied: ${err.message}`,
        details: [],
        pullRequests: s.inputs.pullRequests,
      });
    throw err;
  }
  await postApplyComment(s, outcome.result);
  return outcome.code;
}

interface ApplyStepOutcome {
  readonly code: number;
  /** What the merged pull requests are told. */
  readonly result: ApplyResult;
}

/**
 * Plan first, then apply what was reviewed. With one reviewed plan that the plan made now matches,
 * the reviewed plan file itself is applied (its fingerprints are the review's). Otherwise (a
 * catch-up after a lost apply, or parts already applied) the plan made now is applied when every
 * write in it is covered by the reviewed plans (`findUnreviewedChanges`); else nothing is.
 * Without a reviewed plan, the plan made now is applied.
 */
async function applyReviewed(s: Step, environment: string): Promise<ApplyStepOutcome> {
  const reviewedFiles = s.inputs.planFiles;
  const prs = s.inputs.pullRequests;
  const refused = (headline: string, details: readonly string[]): ApplyResult => ({ environment, status: 'refused', headline, details, pullRequests: prs });
  // The plan made now: with reviewed plans, to compare (kept only when it is the one applied);
  // without, it is the plan to apply, kept beside the configuration like the plan command's.
  const fresh =
    reviewedFiles.length > 0
      ? join(s.a.env['RUNNER_TEMP'] || tmpdir(), `mftops-replan-${fileSafe(environment)}-${randomBytes(4).toString('hex')}.json`)
      : resolve(s.inputs.workingDirectory, `mftops-plan-${fileSafe(environment)}.json`);
  let keepFresh = reviewedFiles.length === 0;
  try {
    const made = await makePlan(s, fresh);
    if (made.plan === undefined) {
      for (const p of made.problems.filter((p) => !made.annotated.has(p))) s.a.runner.annotate('error', p);
      s.a.runner.annotate('error', `mftops apply: the plan at apply time failed for ${environment}; nothing was applied`);
      setOutputs(s.a.runner, { exitcode: 1, summary: `mftops apply failed for ${environment}: the plan failed` });
      appendSummary(s, renderFailureSummary(`mftops apply: ${environment}`, made.problems));
      return { code: 1, result: refused('Nothing was applied: the plan at apply time failed.', made.problems) };
    }
    if (made.denied) {
      await logPlanText(s, made.plan);
      annotatePolicy(s, made.plan);
      const denies = policyDenyLines(made.plan.policy);
      s.a.runner.annotate('error', `mftops apply: a deny policy refuses the plan made now for ${environment}; nothing was applied`);
      setOutputs(s.a.runner, {
        exitcode: 1,
        'has-changes': hasChanges(made.plan),
        summary: `mftops apply refused for ${environment}: ${denies[0] ?? 'a deny policy is violated'}`,
      });
      appendSummary(s, renderPolicyRefusalSummary(environment, made.plan.policy));
      return { code: 1, result: refused('Nothing was applied: a deny policy refuses the plan made now.', denies) };
    }
    if (reviewedFiles.length === 0 && prs.length > 0) {
      // Merged pull requests without their plans: what they changed was reviewed on no plan here.
      const problem = `pull-requests ${prs.map((n) => `#${n}`).join(', ')} given without a reviewed plan-file: nothing was applied`;
      s.a.runner.annotate('error', `mftops apply: ${problem}`);
      setOutputs(s.a.runner, { exitcode: 1, 'has-changes': hasChanges(made.plan), summary: `mftops apply refused for ${environment}: no reviewed plan` });
      appendSummary(s, renderFailureSummary(`mftops apply: ${environment}`, [problem]));
      return { code: 1, result: refused(`Nothing was applied: ${problem.replace(/: nothing was applied$/, '')}.`, []) };
    }
    if (reviewedFiles.length === 0) {
      s.a.runner.log('No reviewed plan-file given: applying the plan made now.');
      return await applyPlanFile(s, environment, fresh, made.plan);
    }
    const reviewed = reviewedFiles.map((f) => readPlanFile(f));
    const only = reviewed.length === 1 ? reviewed[0] : undefined;
    // One reviewed plan the plan made now matches: that very file is applied, so that apply's own
    // stale guard refuses it when anything it touches moved since the review.
    if (only !== undefined && comparePlans(only, made.plan).length === 0) {
      s.a.runner.log(`The plan made now matches the reviewed plan ${relativeTo(s.cwd, reviewedFiles[0]!)}: applying the reviewed plan.`);
      return await applyPlanFile(s, environment, reviewedFiles[0]!, only);
    }
    const differences = findUnreviewedChanges(reviewed, made.plan);
    if (differences.length > 0) {
      const objects = `${differences.length} ${differences.length === 1 ? 'object' : 'objects'}`;
      const headline =
        only !== undefined
          ? `the plan made now differs from the reviewed plan in ${objects}; nothing was applied. Plan again on a pull request and review it:`
          : `the plan made now changes ${objects} no reviewed plan of the ${reviewed.length} pull requests merged since the last successful apply changes so; nothing was applied. Plan again on a pull request and review it:`;
      s.a.runner.annotate(
        'error',
        [
          `mftops apply: ${headline}`,
          ...differences.slice(0, 50).map((d) => `  ${d.detail}`),
          ...(differences.length > 50 ? [`  …and ${differences.length - 50} more (see the job summary)`] : []),
        ].join('\n'),
      );
      setOutputs(s.a.runner, {
        exitcode: 1,
        'has-changes': hasChanges(made.plan),
        'plan-file': reviewedFiles[0]!,
        summary: `refused: the plan differs from the reviewed ${only !== undefined ? 'plan' : 'plans'} in ${objects}`,
      });
      appendSummary(s, renderMismatchSummary(environment, differences));
      return {
        code: 1,
        result: refused(
          `Nothing was applied: ${headline.replace(/:$/, '.')}`,
          differences.map((d) => d.detail),
        ),
      };
    }
    s.a.runner.log(
      made.plan.applyable
        ? `Every change of the plan made now is in ${only !== undefined ? `the reviewed plan ${relativeTo(s.cwd, reviewedFiles[0]!)}` : `one of the ${reviewed.length} reviewed plans`} (the rest is applied already): applying the plan made now.`
        : 'The plan made now has nothing to do: what was reviewed is on the servers already.',
    );
    keepFresh = true;
    return await applyPlanFile(s, environment, fresh, made.plan);
  } finally {
    if (!keepFresh) rmSync(fresh, { force: true });
  }
}

/** Apply the plan file (stale-plan guard, snapshot, verify); its JSON report kept as the report file. */
async function applyPlanFile(s: Step, environment: string, planFile: string, plan: Plan): Promise<ApplyStepOutcome> {
  await logPlanText(s, plan);
  const { applyEnvironment } = await import('../app/apply.js');
  const result = await applyEnvironment(
    {
      ...s.choice,
      planFile,
      // The reviewed plan was made on another runner, maybe in another folder: this step's configuration applies it.
      planConfig: 'given',
      permissions: { allowDelete: s.inputs.allowDelete, allowReplace: s.inputs.allowReplace, maxDeletes: s.inputs.maxDeletes },
      parallelism: s.inputs.parallelism ?? DEFAULTS.applyParallelism,
    },
    s.ctx,
  );
  if (result.status === 'invalid') {
    // The plan file's policies are checked against the manifests as they are now, which must load.
    annotate(s, result.diagnostics);
    const problems = errorLines(result.diagnostics, s.cwd);
    const code = fail(
      s.a.runner,
      problems.length > 0 ? [] : ['mftops apply: the manifests do not load (see the log)'],
      `mftops apply: ${environment}`,
      problems,
    );
    return {
      code,
      result: {
        environment,
        status: 'refused',
        headline: 'Nothing was applied: the manifests do not load.',
        details: problems,
        pullRequests: s.inputs.pullRequests,
      },
    };
  }
  if (result.status !== 'finished') throw new Error(`bug: applying a plan file gave ${result.status}`);
  const report = result.report;
  annotatePolicy(s, report);
  const code = applyExitCode(report);
  const reportFile = resolve(s.inputs.workingDirectory, `mftops-apply-${fileSafe(environment)}.json`);
  try {
    writeFileSync(reportFile, renderApplySummaryJson(report));
  } catch (err) {
    throw systemError(`cannot write the apply report ${reportFile}`, err);
  }
  const reportText = renderApplySummaryText(report);
  s.a.runner.log(reportText);
  for (const failure of failedChangeAnnotations(report, plan, s.cwd)) s.a.runner.annotate('error', failure.message, failure.place);
  if (code !== 0) s.a.runner.annotate('error', `mftops apply: ${reportText.trimEnd()}`);
  setOutputs(s.a.runner, {
    exitcode: code,
    'has-changes': hasChanges(plan),
    'plan-file': planFile,
    'report-file': reportFile,
    summary: reportText.split('\n')[0] ?? '',
  });
  appendSummary(s, renderApplySummary(environment, code === 0, reportText, report.policy));
  const [headline = '', ...rest] = reportText.trimEnd().split('\n');
  const verification = report.verification;
  const verified = verification !== undefined && verification.mode !== 'skipped' && verification.error === undefined && verification.unconverged.length === 0;
  return {
    code,
    result: {
      environment,
      status: applyResultStatus(report.outcome, code),
      headline,
      details: rest,
      ...withDefined({ snapshotId: report.snapshot?.id }),
      ...(verified ? { verifiedBy: verification.mode } : {}),
      pullRequests: s.inputs.pullRequests,
    },
  };
}

/** How an apply report reads on the pull request: `refused` when it wrote nothing, `failed` when it wrote and did not finish cleanly. */
function applyResultStatus(outcome: ApplyOutcome, code: number): ApplyResultStatus {
  switch (outcome) {
    case 'nothing':
      return code === 0 ? 'nothing' : 'failed';
    case 'applied':
      return code === 0 ? 'applied' : 'failed';
    case 'interrupted':
      return 'failed';
    case 'refused':
    case 'stale':
    case 'no-snapshot':
      return 'refused';
    default: {
      const never: never = outcome;
      throw new Error(`unknown apply outcome ${String(never)}`);
    }
  }
}

/**
 * The apply's result on each merged pull request (`pull-requests`). Not posted is a warning, never
 * a failure of the apply: the step's own status and summary still say how it ended.
 */
async function postApplyComment(s: Step, result: ApplyResult): Promise<void> {
  if (!s.inputs.comment || result.pullRequests.length === 0) return;
  const api = githubApi(s);
  if (typeof api === 'string') {
    s.a.runner.annotate('warning', `the apply result was not posted to the pull requests: ${api}`);
    return;
  }
  try {
    for (const posted of await postApplyResult(api, result, withDefined({ runUrl: s.context.runUrl, sha: s.context.sha }))) {
      s.a.runner.log(
        `${posted.action === 'created' ? 'Posted' : 'Updated'} the apply result on pull request #${posted.pullRequest}${posted.comment.htmlUrl !== undefined ? `: ${posted.comment.htmlUrl}` : ''}`,
      );
    }
  } catch (err) {
    s.a.runner.annotate('warning', `the apply result was not posted to the pull requests: ${messageOf(err)}`);
  }
}

// --------------------------------------------------------------------------------------- drift

async function driftStep(s: Step): Promise<number> {
  const environment = environmentName(s);
  const reportFile = resolve(s.inputs.workingDirectory, `mftops-drift-${fileSafe(environment)}.json`);
  const { driftEnvironment } = await import('../app/drift.js');
  const result = await driftEnvironment(
    { ...s.choice, paths: s.inputs.paths, reportFile, parallelism: s.inputs.parallelism ?? DEFAULTS.readParallelism, ...pruneOption(s) },
    s.ctx,
  );
  annotate(s, result.diagnostics);
  if (result.status === 'invalid') {
    const problems = errorLines(result.diagnostics, s.cwd);
    return fail(s.a.runner, problems.length > 0 ? [] : ['mftops drift failed (see the log)'], `mftops drift: ${environment}`, problems);
  }
  const report = result.report;
  const code = driftExitCode(report);
  const sentence = driftSentence(report);
  await s.a.runner.group(`Drift report for ${report.environment}: ${sentence}`, async () => s.a.runner.log(renderDriftText(report, { color: false })));
  const reportHint = s.context.runUrl === undefined ? 'the JSON report of this run' : `the JSON report of [this workflow run](${s.context.runUrl})`;
  const room = s.a.runner.summaryRoom();
  // The markdown report is mostly ASCII; a third of the room in characters always fits in bytes.
  const config = configForCommands(s);
  if (room > 4096) appendSummary(s, renderDriftMarkdown(report, { maxLength: Math.floor((room - 64) / 3), reportHint, ...withDefined({ config }) }));
  const finding: DriftFinding = {
    environment: report.environment,
    inSync: report.status === 'in-sync',
    headline: sentence.replace(/^Drift: /, '').replace(/\.$/, ''),
    renderReport: (maxLength) => renderDriftMarkdown(report, { maxLength, reportHint, ...withDefined({ config }) }),
  };
  const issue = s.inputs.comment ? await updateDriftIssue(s, finding) : { written: true };
  // Nobody hears of the drift unless the issue is written: a failure there fails the step.
  const triaged = await triageDrift(s, report, issue.issue);
  const exitcode = issue.written && triaged ? code : 1;
  setOutputs(s.a.runner, { exitcode, 'has-changes': hasChanges(report.plan), 'report-file': reportFile, summary: sentence });
  return exitcode;
}

/**
 * The configuration as the drift report's commands name it (`--config`), for someone who runs them
 * at the repository root: from there, or absent when it is the default `mftops.yaml` there.
 */
function configForCommands(s: Step): string | undefined {
  const fromRoot = relative(s.context.workspace, s.inputs.config).split('\\').join('/');
  const shown = fromRoot.startsWith('../') || fromRoot === '..' || isAbsolute(fromRoot) ? s.inputs.config : fromRoot;
  return shown === 'mftops.yaml' ? undefined : shown;
}

/** Open, update or close the environment's drift issue; `written` false when GitHub refused; the issue while open. */
async function updateDriftIssue(s: Step, finding: DriftFinding): Promise<{ readonly written: boolean; readonly issue?: Issue }> {
  const api = githubApi(s);
  if (typeof api === 'string') {
    s.a.runner.annotate('warning', `the drift issue was not updated: ${api}`);
    return { written: true };
  }
  try {
    const result = await syncDriftIssue(api, finding, origin(s));
    const where = result.issue?.htmlUrl ?? (result.issue !== undefined ? `#${result.issue.number}` : '');
    switch (result.action) {
      case 'opened':
        s.a.runner.log(`Opened the drift issue ${where}`);
        return { written: true, ...withDefined({ issue: result.issue }) };
      case 'updated':
        s.a.runner.log(`Updated the drift issue ${where}`);
        return { written: true, ...withDefined({ issue: result.issue }) };
      case 'closed':
        s.a.runner.log(`Closed the drift issue ${where}: back in sync`);
        return { written: true };
      case 'none':
        return { written: true };
      default: {
        const never: never = result.action;
        throw new Error(`unknown drift issue action ${String(never)}`);
      }
    }
  } catch (err) {
    if (!isMftopsError(err)) throw err;
    s.a.runner.annotate('error', `the drift issue was not updated: ${err.message}`);
    return { written: false };
  }
}

/** `on-drift`: what the drift job does beyond the issue; false when that failed (the step fails). */
async function triageDrift(s: Step, report: DriftReport, issue: Issue | undefined): Promise<boolean> {
  switch (s.inputs.onDrift) {
    case 'report':
      return true;
    case 'adopt-pr':
      return await adoptPrStep(s, report);
    case 'revert-plan':
      return await revertPlanStep(s, report, issue);
    default: {
      const never: never = s.inputs.onDrift;
      throw new Error(`unknown on-drift ${String(never)}`);
    }
  }
}

/**
 * `on-drift: adopt-pr`: the adoption computed as `drift --adopt --dry-run` would (the checkout is
 * not written), its files committed on a branch of the environment through the Git Data API, and
 * one pull request per environment opened, updated, or closed when nothing is left to adopt.
 * The base is the branch and commit the job checked out (`GITHUB_REF`, `GITHUB_SHA`): the
 * adoption was computed from those manifests, so its diff is exactly the pull request's.
 */
async function adoptPrStep(s: Step, drift: DriftReport): Promise<boolean> {
  const problem = (message: string): false => {
    s.a.runner.annotate('error', `on-drift adopt-pr: ${message}`);
    return false;
  };
  const api = githubApi(s);
  if (typeof api === 'string') return problem(`no pull request was opened: ${api}`);
  const branch = /^refs\/heads\/(.+)$/.exec(s.context.ref ?? '')?.[1];
  if (branch === undefined || s.context.sha === undefined)
    return problem(`the job must run on a branch (GITHUB_REF is ${s.context.ref ?? 'not set'}): the pull request's base is the branch it checked out`);
  const head = checkoutHead(s.context.workspace);
  if (head !== undefined && head !== s.context.sha)
    return problem(
      `the checkout is at ${head.slice(0, 12)}, not at GITHUB_SHA ${s.context.sha.slice(0, 12)}: the adoption would go onto another commit's files; check out GITHUB_SHA (actions/checkout's default)`,
    );
  let proposal: AdoptionProposal = { environment: drift.environment, files: [], title: '', body: '', commitMessage: '' };
  if (drift.status === 'drift') {
    const { adoptDrift } = await import('../app/adopt-drift.js');
    const result = await adoptDrift(
      { ...s.choice, paths: s.inputs.paths, parallelism: s.inputs.parallelism ?? DEFAULTS.readParallelism, ...pruneOption(s), addresses: [], dryRun: true },
      s.ctx,
    );
    if (result.status === 'invalid') return problem(errorLines(result.diagnostics, s.cwd)[0] ?? 'the manifests do not load (see the log)');
    const adoption = result.report;
    await s.a.runner.group(`Adoption for ${drift.environment}`, async () => s.a.runner.log(renderAdoptionText(adoption)));
    const files = adoptedTreeFiles(adoption, s.cwd, s.context.workspace);
    const now = new Date();
    proposal = {
      environment: drift.environment,
      files,
      title: renderAdoptTitle(adoption),
      body: renderAdoptPrBody(adoption, drift, origin(s), now),
      commitMessage: renderAdoptCommitMessage(adoption),
    };
  }
  try {
    const result = await syncAdoptionPullRequest(api, proposal, { branch, sha: s.context.sha }, origin(s));
    const pr = result.pullRequest;
    const where = pr === undefined ? '' : (pr.htmlUrl ?? `#${pr.number}`);
    switch (result.action) {
      case 'opened':
      case 'updated':
        s.a.runner.log(`${result.action === 'opened' ? 'Opened' : 'Updated'} the adoption pull request ${where}`);
        if (pr !== undefined) setOutputs(s.a.runner, { 'adopt-pr': pr.number, ...withDefined({ 'adopt-pr-url': pr.htmlUrl }) });
        return true;
      case 'closed':
        s.a.runner.log(`Closed the adoption pull request ${where}: nothing left to adopt`);
        return true;
      case 'none':
        if (drift.status === 'drift') s.a.runner.log('Nothing of the drift can be adopted: no pull request (see the drift issue)');
        return true;
      case 'declined':
        s.a.runner.log(
          `The adoption pull request ${where} was closed without merging for this same drift: left closed (a different drift opens a new one; reopen it to take it up again)`,
        );
        return true;
      case 'kept':
        // The pull request someone edited stays theirs (a warning, said on it too); a branch taken
        // by something else leaves the drift without a pull request: the step fails.
        s.a.runner.annotate(pr === undefined ? 'error' : 'warning', `on-drift adopt-pr: ${result.reason ?? `branch of ${drift.environment} left as it is`}`);
        return pr !== undefined;
      default: {
        const never: never = result.action;
        throw new Error(`unknown adoption pull request action ${String(never)}`);
      }
    }
  } catch (err) {
    if (!isMftopsError(err)) throw err;
    const hint = /`workflows` permission/.test(err.message) ? '' : ' (the job needs `permissions: { contents: write, pull-requests: write }`)';
    return problem(`the pull request was not opened or updated: ${err.message}${hint}`);
  }
}

/**
 * The commit checked out in the workspace (`git rev-parse HEAD`), or undefined when git is not
 * there or the workspace is not the root of a git checkout (nothing to compare).
 */
function checkoutHead(workspace: string): string | undefined {
  try {
    const [top, head] = execFileSync('git', ['rev-parse', '--show-toplevel', 'HEAD'], { cwd: workspace, stdio: ['ignore', 'pipe', 'ignore'], encoding: 'utf8' })
      .trim()
      .split('\n');
    return top !== undefined && realpathSync(top) === realpathSync(workspace) ? head : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `on-drift: revert-plan`: the plan that puts the servers back as git says (what `mftops plan`
 * makes; read-only), saved as the `plan-file` output for the apply workflow and posted on the
 * drift issue as one comment, updated in place by later runs. Nothing is applied.
 */
async function revertPlanStep(s: Step, drift: DriftReport, issue: Issue | undefined): Promise<boolean> {
  if (drift.status !== 'drift') return true;
  const environment = drift.environment;
  // Only what the drift report lists: the plan of everything would revert acknowledged drift too.
  const targets = [...new Set([...drift.drifted.map((d) => d.address), ...drift.unmanaged.filter((u) => u.pruned).map((u) => u.address)])];
  if (targets.length === 0) {
    s.a.runner.log(`No object of ${environment} differs from git (the drift is elsewhere, see the drift issue): no plan to revert it`);
    return true;
  }
  const acknowledged = drift.acknowledged.filter((a) => targets.includes(a.address));
  const planFile = s.inputs.planFile ?? resolve(s.inputs.workingDirectory, `mftops-plan-${fileSafe(environment)}.json`);
  const made = await makePlan(s, planFile, targets);
  if (made.plan === undefined) {
    for (const p of made.problems.filter((p) => !made.annotated.has(p))) s.a.runner.annotate('error', `on-drift revert-plan: ${p}`);
    return false;
  }
  const plan = made.plan;
  if (made.denied)
    s.a.runner.annotate('warning', `on-drift revert-plan: a deny policy refuses the plan that would revert ${environment}; no plan file was saved`);
  else {
    s.a.runner.log(`The plan that would revert the drift of ${environment} is saved in ${relativeTo(s.cwd, planFile)}: ${summaryLine(plan)}`);
    setOutputs(s.a.runner, { 'plan-file': planFile });
  }
  if (issue === undefined) return true;
  const api = githubApi(s);
  if (typeof api === 'string') return true;
  try {
    const scope =
      acknowledged.length === 0
        ? 'Only the drifted objects are in it: acknowledged differences (drift.ignore) are left out.'
        : `Only the drifted objects are in it, but it reverts the acknowledged differences (drift.ignore) they carry too: ${acknowledged
            .slice(0, 20)
            .map((a) => `<code>${escapeMd(a.address)}</code> ${escapeMd(a.what)}`)
            .join(', ')}${acknowledged.length > 20 ? ` and ${acknowledged.length - 20} more` : ''}.`;
    const intro = `**The plan that would revert this drift.** Nothing was applied: apply it through the apply workflow (the plan file of ${s.context.runUrl === undefined ? 'this run' : `[this run](${s.context.runUrl})`}) after review, or adopt the changes into git instead. ${scope}\n\n`;
    const comment = renderPlanComment(plan, origin(s), GITHUB_COMMENT_LIMIT - intro.length, made.diagnostics);
    const marker = planMarker(environment);
    const body = comment.startsWith(`${marker}\n`) ? `${marker}\n${intro}${comment.slice(marker.length + 1)}` : comment;
    const posted = await upsertStickyComment(api, issue.number, marker, body);
    s.a.runner.log(`${posted.action === 'created' ? 'Posted' : 'Updated'} the revert plan on the drift issue #${issue.number}`);
    return true;
  } catch (err) {
    if (!isMftopsError(err)) throw err;
    s.a.runner.annotate('error', `on-drift revert-plan: the plan was not posted on the drift issue: ${err.message}`);
    return false;
  }
}

// ------------------------------------------------------------------------------------- GitHub

function origin(s: Step): { runUrl?: string; sha?: string } {
  const sha = s.context.pullRequest?.headSha ?? s.context.sha;
  return withDefined({ runUrl: s.context.runUrl, sha });
}

/** The REST client, or why there is none (a warning, never a failure of the plan). */
function githubApi(s: Step): GithubApi | string {
  if (s.context.repo === undefined) return 'GITHUB_REPOSITORY is not set';
  if (s.inputs.githubToken === '') return 'the github-token input is empty';
  return createGithubApi({ apiUrl: s.context.apiUrl, token: s.inputs.githubToken, owner: s.context.repo.owner, repo: s.context.repo.name });
}

/**
 * The sticky comment. A comment that cannot be posted (no pull request, a fork's read-only
 * token) is a warning: the plan itself is in the summary and the plan file.
 */
async function postComment(s: Step, environment: string, body: string): Promise<void> {
  const pr = s.context.pullRequest;
  if (pr === undefined) {
    s.a.runner.annotate(
      'warning',
      `no pull request in this ${s.context.eventName ?? 'run'} event: the plan comment was not posted (set comment: false to silence this)`,
    );
    return;
  }
  const api = githubApi(s);
  if (typeof api === 'string') {
    s.a.runner.annotate('warning', `the plan comment was not posted: ${api}`);
    return;
  }
  try {
    const result = await upsertStickyComment(api, pr.number, planMarker(environment), body);
    s.a.runner.log(
      `${result.action === 'created' ? 'Posted' : 'Updated'} the plan comment on pull request #${pr.number}${result.comment.htmlUrl !== undefined ? `: ${result.comment.htmlUrl}` : ''}`,
    );
  } catch (err) {
    s.a.runner.annotate('warning', `the plan comment was not posted: ${messageOf(err)}`);
  }
}

// ------------------------------------------------------------------------------------- helpers

/** The `prune` input as the use cases take it: absent when empty. */
function pruneOption(s: Step): { prune?: boolean } {
  return s.inputs.prune !== undefined ? { prune: s.inputs.prune } : {};
}

/** The environment the step works on: the input, else the configuration's only one (errors name the fix). */
function environmentName(s: Step): string {
  return selectEnvironment(loadConfig(s.inputs.config, s.cwd), s.inputs.environment).name;
}

type OutputValue = string | number | boolean;

function setOutputs(runner: Runner, outputs: Readonly<Record<string, OutputValue>>): void {
  for (const [name, value] of Object.entries(outputs)) runner.setOutput(name, String(value));
}

function appendSummary(s: Step, markdown: string): void {
  if (!s.a.runner.appendSummary(`${markdown}\n`))
    s.a.runner.log('(the job summary was not written: GITHUB_STEP_SUMMARY is not set, or the step summary is full)');
}

/**
 * A failed step: `problems` become error annotations; `shown` are problems the command already
 * annotated itself (listed in the summary, not annotated twice).
 */
/**
 * The step's failure for an error nobody handled (the crash guard of the entry point): the same
 * `::error` annotation, outputs and summary as any failure, with "a bug in mftops" only when the
 * error is not one of ours. Not again when that very message was already annotated (an unhandled
 * copy of an error the step also caught).
 */
export function failOnCrash(runner: Runner, err: unknown, annotated: ReadonlySet<string> = new Set()): void {
  const message = messageOf(err);
  if (annotated.has(message)) return;
  fail(runner, [message], 'mftops');
}

function fail(runner: Runner, problems: readonly string[], title: string, shown: readonly string[] = []): number {
  for (const p of problems) runner.annotate('error', p);
  const all = [...shown, ...problems];
  runner.setOutput('exitcode', '1');
  runner.setOutput('summary', `${title} failed: ${all[0] ?? ''}`);
  runner.appendSummary(`${renderFailureSummary(title, all)}\n`);
  return 1;
}

function messageOf(err: unknown): string {
  return userMessageOf(err) ?? `internal error: ${err instanceof Error ? err.message : String(err)} (this is a bug in mftops; please report it)`;
}

function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

function relativeTo(cwd: string, path: string): string {
  return isInside(path, cwd) ? relative(cwd, path) || '.' : path;
}

/** An environment name as part of a file name. */
function fileSafe(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}
