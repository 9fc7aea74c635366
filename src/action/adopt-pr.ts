import type { AdoptedFileObject, AdoptionFileResult, AdoptionReport } from '../adopt/model.js';
import type { DriftedObject, DriftReport } from '../drift/model.js';
import { attributionText, entryPhrase, grantText, sideWords, valueText } from '../render/drift-common.js';
import { escapeMd } from '../render/text.js';
import { withDefined } from '../with-defined.js';
import { GithubApiError, type GitCommit, type GithubApi, type PullRequest, type TreeFile } from './github-api.js';
import { GITHUB_COMMENT_LIMIT, markerName, upsertStickyComment, type CommentOrigin } from './pr-comment.js';

/**
 * `on-drift: adopt-pr`: the adopted manifests of one environment proposed as one pull request,
 * from one branch (`mftops/adopt-ENV`) holding one commit on the base the drift job checked out.
 * Written through the Git Data API (the runner's checkout is never touched); every run replaces
 * the branch's commit, so the pull request always shows this run's adoption, never a stack — but
 * only mftops's own commit: a branch whose head someone else wrote is left as it is.
 */

/**
 * The branch of an environment's adoption pull request: one per environment (two names never share
 * one), a valid git ref name. Letters, digits, `_`, `-` and `.` stay; every other byte is `%XX`, and
 * so is a `.` git forbids where it is (before another `.`, at the end, before a final `lock`).
 */
export function adoptBranch(environment: string): string {
  const encoded = [...Buffer.from(environment, 'utf8')]
    .map((b) => (/[A-Za-z0-9_.-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('')
    .replace(/\.(?=\.|$|lock$)/g, '%2E');
  return `mftops/adopt-${encoded}`;
}

/** The hidden line in the pull request body naming the environment. */
export function adoptMarker(environment: string): string {
  return `<!-- mftops:adopt:${markerName(environment)} -->`;
}

/** The first line of mftops's adoption commit: a branch head with another is someone's work. */
export function adoptCommitSubject(environment: string): string {
  return `mftops: adopt drift of ${environment}`;
}

/** What one run proposes for one environment: the files and the words, all built from redacted values. */
export interface AdoptionProposal {
  readonly environment: string;
  /** The adopted manifest files, by path from the repository root; empty: nothing (left) to adopt. */
  readonly files: readonly TreeFile[];
  readonly title: string;
  readonly body: string;
  readonly commitMessage: string;
}

/**
 * - `opened`: a new pull request;
 * - `updated`: the open one now shows this run (its branch moved when the files differ);
 * - `closed`: nothing left to adopt, the open one got a comment and was closed;
 * - `none`: nothing to adopt and none open;
 * - `declined`: someone closed (without merging) the pull request of this very adoption: left closed;
 * - `kept`: the branch's head is not mftops's commit (a reviewer's fix-up, someone's own branch of
 *   that name): left as it is, `reason` says why, the open pull request (if any) got a comment.
 */
export type AdoptPrAction = 'opened' | 'updated' | 'closed' | 'none' | 'kept' | 'declined';

export interface AdoptPrResult {
  readonly action: AdoptPrAction;
  readonly pullRequest?: PullRequest;
  /** The commit now at the head of the branch (opened, updated). */
  readonly headSha?: string;
  /** Why the branch was left as it is (kept): one line. */
  readonly reason?: string;
}

/** Where the commit goes: the branch the drift job ran on and the commit it checked out. */
export interface AdoptionBase {
  readonly branch: string;
  readonly sha: string;
}

/**
 * Keep one pull request per environment in step with what is adoptable: open it, or update the
 * open one (found by its branch) with a fresh commit on `base` — unless the files are those its
 * head has already, which then stays, so a night without news pushes nothing — and close it with
 * a comment when there is nothing left to adopt.
 */
export async function syncAdoptionPullRequest(
  api: GithubApi,
  proposal: AdoptionProposal,
  base: AdoptionBase,
  origin: CommentOrigin,
  now: Date = new Date(),
): Promise<AdoptPrResult> {
  const branch = adoptBranch(proposal.environment);
  const open = await api.findOpenPullRequest(branch);
  if (open !== undefined && !open.body.includes(adoptMarker(proposal.environment))) {
    const reason = `pull request #${open.number} from branch ${branch} is not mftops's adoption pull request of ${proposal.environment} (its body lacks ${adoptMarker(proposal.environment)}): left as it is; merge or close it and delete the branch for mftops to propose the drift`;
    return { action: 'kept', reason, pullRequest: open };
  }
  if (proposal.files.length === 0) {
    if (open === undefined) return { action: 'none' };
    await api.createIssueComment(open.number, renderAdoptClosingComment(proposal.environment, origin, now));
    return { action: 'closed', pullRequest: await api.updatePullRequest(open.number, { state: 'closed' }) };
  }
  const tree = await api.createTree(await api.getCommitTree(base.sha), proposal.files);
  if (open === undefined) {
    // Closed without merging for these very files: a decision, not to be undone every night.
    const closed = await api.findClosedUnmergedPullRequest(branch);
    if (closed?.headSha !== undefined && closed.body.includes(adoptMarker(proposal.environment))) {
      const head = await api.getCommit(closed.headSha);
      if (isAdoptCommit(head, proposal.environment) && head.tree === tree) return { action: 'declined', pullRequest: closed };
    }
  }
  const same = open?.headSha !== undefined && (await api.getCommitTree(open.headSha)) === tree;
  let headSha = open?.headSha;
  if (!same) {
    // Only mftops's own commit is replaced: a commit someone pushed is never lost.
    const current = await api.getBranchSha(branch);
    if (current !== undefined && !isAdoptCommit(await api.getCommit(current), proposal.environment)) {
      const reason = `branch ${branch} has a commit that is not mftops's (${current.slice(0, 12)}): mftops leaves it as it is; ${open === undefined ? 'rename or delete that branch' : `merge or close pull request #${open.number} and delete the branch`} for mftops to propose the drift of ${proposal.environment}`;
      if (open !== undefined) {
        const marker = `<!-- mftops:adopt-kept:${markerName(proposal.environment)} -->`;
        await upsertStickyComment(
          api,
          open.number,
          marker,
          `${marker}\nmftops did not update this pull request: its branch <code>${escapeMd(branch)}</code> has a commit that is not mftops's (${current.slice(0, 12)}), which mftops never replaces. Merge or close this pull request and delete the branch for mftops to propose the drift of **${escapeMd(proposal.environment)}** again.`,
        );
      }
      return { action: 'kept', reason, ...withDefined({ pullRequest: open }) };
    }
    headSha = await api.createCommit({ message: proposal.commitMessage, tree, parents: [base.sha] });
    try {
      await api.setBranch(branch, headSha, current !== undefined);
    } catch (err) {
      // The base changed .github/workflows since the branch's commit: a token without the
      // `workflows` permission (GITHUB_TOKEN, most Apps) may not move a branch over that.
      if (!(err instanceof GithubApiError) || !/without `?workflows`? permission/i.test(err.message)) throw err;
      throw new GithubApiError(
        `GitHub refuses to write branch ${branch}: it would change .github/workflows and the token lacks the \`workflows\` permission; delete the branch ${branch}, or pass a token with that permission as github-token`,
        err.status,
      );
    }
  }
  const withHead = (pr: PullRequest): AdoptPrResult => ({
    action: open === undefined ? 'opened' : 'updated',
    pullRequest: pr,
    ...(headSha ? { headSha } : {}),
  });
  if (open !== undefined) return withHead(await api.updatePullRequest(open.number, { title: proposal.title, body: proposal.body }));
  return withHead(await api.createPullRequest({ title: proposal.title, body: proposal.body, head: branch, base: base.branch }));
}

/** mftops's commit: one parent (the base), its message the one renderAdoptCommitMessage writes. */
function isAdoptCommit(commit: GitCommit, environment: string): boolean {
  return commit.parents.length === 1 && commit.message.startsWith(`${adoptCommitSubject(environment)}\n`);
}

export function renderAdoptClosingComment(environment: string, origin: CommentOrigin, now: Date): string {
  const run = origin.runUrl === undefined ? 'the drift job' : `[the drift job](${origin.runUrl})`;
  return `Nothing of **${escapeMd(environment)}** is left to adopt: the servers match git, or what still differs cannot be adopted (checked by ${run} at ${now.toISOString()}). Closing.`;
}

/** `Adopt drift in prod: 3 objects changed on the servers`. */
export function renderAdoptTitle(report: AdoptionReport): string {
  return `Adopt drift in ${report.environment}: ${plural(adoptedObjects(report).length, 'object')} changed on the servers`.slice(0, 250);
}

/** The commit message: addresses and field names only, never a value. */
export function renderAdoptCommitMessage(report: AdoptionReport): string {
  const lines = adoptedObjects(report).map(
    ({ object }) => `- ${object.address}${object.paths.length > 0 ? `: ${object.paths.join(', ')}` : ` (${object.outcome})`}`,
  );
  return `${adoptCommitSubject(report.environment)}\n\nThe manifests now say what the servers have (mftops drift --adopt):\n\n${lines.join('\n')}\n`;
}

/**
 * The pull request body: marker, what each adopted object changes (git → server per field, as the
 * drift report shows it: secrets are never in it), who changed it last and when, what was not
 * adopted and why, the placeholders to set, a footer with the run. Fitted to GitHub's body limit:
 * objects that do not fit are counted, not cut in half.
 */
export function renderAdoptPrBody(report: AdoptionReport, drift: DriftReport, origin: CommentOrigin, now: Date): string {
  const head = [
    adoptMarker(report.environment),
    `## mftops: adopt the drift of <code>${escapeMd(report.environment)}</code> into git`,
    '',
    `Someone changed the servers of **${escapeMd(report.environment)}** outside git. This pull request changes the manifests to say what the servers have now: merging it accepts those changes (the next plan shows no change for them). To put the servers back instead, close it and apply the manifests (\`mftops apply --target ADDRESS\`, or the \`on-drift: revert-plan\` drift job).`,
  ].join('\n');
  const run = origin.runUrl === undefined ? 'the drift job' : `[the drift job](${origin.runUrl})`;
  const foot = `\n---\n<sub>Made by ${run} at ${now.toISOString()}${origin.sha === undefined ? '' : ` on ${escapeMd(origin.sha.slice(0, 12))}`}. mftops replaces its commit on this branch on every run while the drift lasts and closes this pull request when nothing is left to adopt; once someone pushes a commit to the branch, mftops leaves the branch as it is.</sub>\n`;
  const tail: string[] = [];
  if (report.refused.length > 0) {
    tail.push('### Not adopted', '', '| Object | Field | Why |', '|:--|:--|:--|');
    for (const r of report.refused) tail.push(`| ${code(r.address)} | ${r.path === undefined ? '—' : code(r.path)} | ${escapeMd(r.reason)} |`);
  }
  if (report.secrets.length > 0) {
    tail.push(
      '',
      '### Secrets to set',
      '',
      'The new manifests reference these variables for secrets the server does not show; set them before the next apply:',
      '',
    );
    for (const sp of report.secrets) tail.push(`- ${code(sp.variable)} (${code(sp.address)} ${code(sp.field)})`);
  }
  if (report.audit.state === 'unreadable') tail.push('', `> [!NOTE]\n> ${escapeMd(report.audit.message)}; who changed what is not shown.`);
  const tailText = tail.length > 0 ? `\n\n${tail.join('\n')}` : '';
  const blocks = adoptedObjects(report).map(({ file, object }) =>
    renderObject(
      file,
      object,
      drift.drifted.find((d) => d.address === object.address),
    ),
  );
  let room = GITHUB_COMMENT_LIMIT - head.length - foot.length - tailText.length - 200;
  const shown: string[] = [];
  for (const b of blocks) {
    if (b.length + 2 > room) break;
    shown.push(b);
    room -= b.length + 2;
  }
  const cut = blocks.length - shown.length;
  const note = cut > 0 ? `\n\n> [!NOTE]\n> ${plural(cut, 'more object')} left out to keep this under GitHub's size limit: the diff has them all.` : '';
  return `${head}\n\n### Adopted\n\n${shown.join('\n\n')}${note}${tailText}\n${foot}`;
}

function renderObject(file: AdoptionFileResult, o: AdoptedFileObject, d: DriftedObject | undefined): string {
  const what =
    o.outcome === 'changed'
      ? `changed on the server, in ${code(file.path)}`
      : o.outcome === 'removed'
        ? `deleted on the server: its document removed from ${code(file.path)}`
        : `created on the server: new manifest ${code(file.path)}`;
  const lines = [`#### ${code(o.address)}`, '', what];
  if (o.lastChange !== undefined) lines.push('', `Last change: ${escapeMd(attributionText(o.lastChange))}`);
  const fields = d?.fields.filter((f) => o.paths.includes(f.path)) ?? [];
  const entries = d?.entries.filter((e) => o.paths.includes(e.path)) ?? [];
  if (fields.length > 0) {
    lines.push('', '| Field | Was in git | Now (from the server) |', '|:--|:--|:--|');
    for (const f of fields)
      lines.push(
        `| ${code(f.path)} | ${value(valueText(f.expected, sideWords(f, 'expected')), f.expected === undefined)} | ${value(valueText(f.actual, sideWords(f, 'actual')), f.actual === undefined)} |`,
      );
  }
  if (entries.length > 0) {
    lines.push('', '| Entry | Difference | Was in git | Now (from the server) |', '|:--|:--|:--|:--|');
    for (const e of entries)
      lines.push(
        `| ${e.principal.type.toLowerCase()} ${code(e.principal.name)} | ${escapeMd(entryPhrase(e))} | ${escapeMd(grantText(e.expected))} | ${escapeMd(grantText(e.actual))} |`,
      );
  }
  // Paths the drift report words differently (or that it does not list): named, without values.
  const other = o.paths.filter((p) => !fields.some((f) => f.path === p) && !entries.some((e) => e.path === p));
  if (other.length > 0) lines.push('', `Also adopted: ${other.map(code).join(', ')}`);
  return lines.join('\n');
}

function adoptedObjects(report: AdoptionReport): { readonly file: AdoptionFileResult; readonly object: AdoptedFileObject }[] {
  return report.files.flatMap((file) => file.objects.map((object) => ({ file, object })));
}

function value(text: string, absent: boolean): string {
  if (absent) return '<em>not set</em>';
  return code(text.length > 300 ? `${text.slice(0, 300)}…` : text);
}

function code(text: string): string {
  return `<code>${escapeMd(text)}</code>`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
