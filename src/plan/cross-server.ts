import type { AutomationLiveState, LiveFolder, LiveState } from '../live/model.js';
import { folderKey, parentPath, trimFolderPath } from '../folder-path.js';
import type { DestinationStep, Manifest, SourceStep, Step, TaskManifest } from '../manifest/types.js';
import { stepKindOf } from '../manifest/types.js';
import type { Host } from '../services/automation/types.js';
import type { FolderAclEntry } from '../services/transfer/types.js';
import type { FolderPermission } from '../vocabulary.js';
import { FOLDER_PERMISSIONS } from '../vocabulary.js';
import { computeEffectiveAccess, groupMembersFrom, NO_MEMBERS } from '../access/effective.js';
import type { AccessEntry } from '../access/effective.js';
import { createPlanWarning } from './diagnostics.js';
import type { PlanDiagnostic } from './diagnostics.js';
import { formatAddress } from './model.js';
import type { Change, FolderPermissionsPayload, TransferStepChecks, TransferStepProblem } from './model.js';
import { sourceRef } from './compute-plan.js';

/**
 * Which automation hosts point at this environment's transfer service: those `transferHosts`
 * names (case-insensitive, as the server compares host names), and any whose `Host` is the
 * hostname of the transfer URL.
 */
export interface TransferHostMatch {
  readonly transferHosts: readonly string[];
  /** Hostname of the configured transfer URL; absent when the environment has no transfer service. */
  readonly transferHostname?: string;
}

/** A Source or Destination step of a task manifest on a transfer host, with what it needs there. */
export interface TransferStep {
  readonly manifest: TaskManifest;
  /** Index in `spec.steps`. */
  readonly index: number;
  readonly kind: 'Source' | 'Destination';
  readonly host: Host;
  /** The folder, as the step writes it (trailing slashes dropped). */
  readonly path: string;
  /** The step's `Username`, else the host's `DefUsername`. */
  readonly account?: string;
  /** Source: readFiles, listFiles (and deleteFiles when `DeleteOrig: 1`); Destination: writeFiles. */
  readonly needs: readonly FolderPermission[];
}

/** The hostname of a service URL, lower-cased; undefined when it is not a URL. */
export function hostnameOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase() || undefined;
  } catch {
    return undefined;
  }
}

export function isTransferHost(host: Host, match: TransferHostMatch): boolean {
  const name = host.Name.toLowerCase();
  if (match.transferHosts.some((n) => n.toLowerCase() === name)) return true;
  const address = typeof host.Host === 'string' ? host.Host.trim().toLowerCase() : '';
  return match.transferHostname !== undefined && address !== '' && address === match.transferHostname;
}

/**
 * The steps of the task manifests that run on a transfer host and name a folder by `Path`. A path
 * with a macro (`[…]`) names no one folder and is left out, as is a step whose host is unknown
 * (MF401 says so).
 */
export function findTransferSteps(manifests: readonly Manifest[], automation: AutomationLiveState | undefined, match: TransferHostMatch): TransferStep[] {
  const hosts = automation?.hosts;
  if (hosts === undefined) return [];
  const out: TransferStep[] = [];
  for (const m of manifests) {
    if (m.kind !== 'Task') continue;
    (m.spec.steps ?? []).forEach((step: Step, index) => {
      const kind = stepKindOf(step);
      if (kind === 'Process') return;
      const body: SourceStep | DestinationStep = 'Source' in step ? step.Source : (step as { Destination: DestinationStep }).Destination;
      const host =
        typeof body.Host === 'string' ? hosts.byName.get(body.Host.toLowerCase()) : typeof body.HostID === 'string' ? hosts.byId.get(body.HostID) : undefined;
      if (host === undefined || !isTransferHost(host, match)) return;
      if (typeof body.Path !== 'string' || body.Path.trim() === '' || body.Path.includes('[')) return;
      const path = trimFolderPath(body.Path.trim().startsWith('/') ? body.Path.trim() : `/${body.Path.trim()}`);
      const account = nonEmpty(body.Username) ?? nonEmpty(host.DefUsername);
      const deletes = 'DeleteOrig' in body && body.DeleteOrig === 1;
      const needs: FolderPermission[] = kind === 'Source' ? ['readFiles', 'listFiles', ...(deletes ? (['deleteFiles'] as const) : [])] : ['writeFiles'];
      out.push({ manifest: m, index, kind, host, path, ...(account !== undefined ? { account } : {}), needs });
    });
  }
  return out;
}

export interface CheckTransferStepsInput {
  readonly steps: readonly TransferStep[];
  readonly live: LiveState;
  /** The plan's changes: a folder it creates exists, and entries it sets or removes count. */
  readonly changes: readonly Change[];
  readonly cwd?: string;
}

/**
 * The cross-server checks, against the transfer server as it will be after apply: each step's
 * folder exists (or a change of this plan creates it), and the account has the rights the step
 * needs through its own entry and its groups' entries. Every problem is also a warning (MF415
 * missing folder, MF416 rights) at the step's `Path`.
 */
export function checkTransferSteps(input: CheckTransferStepsInput): { checks?: TransferStepChecks; diagnostics: PlanDiagnostic[] } {
  if (input.steps.length === 0) return { diagnostics: [] };
  const transfer = input.live.transfer;
  const users = transfer?.users;
  const read = input.live.transfer?.groupMembers;
  const members = read === undefined ? NO_MEMBERS : groupMembersFrom(read.members);
  const problems: TransferStepProblem[] = [];
  const diagnostics: PlanDiagnostic[] = [];
  let groupsUncounted = false;
  for (const step of input.steps) {
    const at = step.manifest.sourceMap.locate(['spec', 'steps', step.index, step.kind, 'Path']);
    const base = {
      address: formatAddress('Task', step.manifest.name),
      step: step.index,
      stepKind: step.kind,
      host: step.host.Name,
      path: step.path,
      ...(step.account !== undefined ? { account: step.account } : {}),
      source: sourceRef(at, input.cwd),
    };
    const where = `step ${step.index + 1} (${step.kind}) of task \`${step.manifest.name}\` on host \`${step.host.Name}\``;
    const acl = aclAfterPlan(step.path, input.live, input.changes);
    if (acl === undefined) {
      problems.push({ ...base, problem: 'missing-folder' });
      diagnostics.push(
        createPlanWarning('MF415', at, `folder ${step.path} does not exist on the transfer server, and this plan does not create it: ${where} would fail`, {
          address: base.address,
          hint: 'correct the `Path`, or add a FolderPermissions manifest for the folder with `createIfMissing`',
          detail: 'the transfer server answers a folder its account may not see as missing too (403)',
        }),
      );
      continue;
    }
    if (step.account !== undefined && users === undefined) continue;
    const user = step.account === undefined ? undefined : users?.byName.get(step.account.toLowerCase());
    if (user === undefined) {
      problems.push({ ...base, problem: 'unknown-account', missing: [...step.needs] });
      const who =
        step.account === undefined
          ? `host \`${step.host.Name}\` has no account (\`DefUsername\`) and the step no \`Username\``
          : `account \`${step.account}\` is not a user of the transfer server`;
      diagnostics.push(
        createPlanWarning('MF416', at, `${who}: ${where} needs ${step.needs.join(', ')} on ${step.path}`, {
          address: base.address,
          hint: "set the step's `Username` or the host's `DefUsername` to a user of the transfer server",
        }),
      );
      continue;
    }
    const access = computeEffectiveAccess(accessEntries(acl, input.live), members);
    const granted = access.users.get(user.username.toLowerCase())?.permissions ?? [];
    const missing = step.needs.filter((p) => !granted.includes(p));
    if (missing.length === 0) continue;
    // A group whose members are unknown may be what grants it: say so rather than guess.
    const unknown = access.unknownGroups.filter((g) => missing.some((p) => g.permissions.includes(p))).map((g) => g.name);
    if (unknown.length > 0) groupsUncounted = true;
    problems.push({ ...base, problem: 'missing-rights', missing });
    diagnostics.push(
      createPlanWarning('MF416', at, `account \`${user.username}\` lacks ${missing.join(', ')} on ${step.path}, which ${where} needs`, {
        address: base.address,
        hint: `grant ${missing.join(', ')} to ${user.username} (or a group of theirs) in the folder's FolderPermissions manifest`,
        ...(unknown.length > 0
          ? {
              detail: `the members of ${unknown.map((g) => `\`${g}\``).join(', ')} could not be read from the transfer server: an entry of ${unknown.length === 1 ? 'that group' : 'those groups'} may grant it`,
            }
          : {}),
      }),
    );
  }
  const checks: TransferStepChecks = {
    checked: input.steps.length,
    problems,
    ...(users === undefined && input.steps.some((s) => s.account !== undefined) ? { rightsUnchecked: 'users-unreadable' as const } : {}),
    ...(groupsUncounted ? { groupsUncounted: 'membership-unreadable' as const } : {}),
  };
  return { checks, diagnostics };
}

/**
 * The folder's ACL once the plan is applied, or undefined when the folder will not exist: the live
 * entries (a created folder starts with its parent's when it inherits them), then the entries the
 * plan's change sets and removes.
 */
function aclAfterPlan(path: string, live: LiveState, changes: readonly Change[]): readonly FolderAclEntry[] | undefined {
  const key = folderKey(path);
  const change = changes.find((c) => c.kind === 'FolderPermissions' && folderKey(c.name) === key);
  const payload = change?.payload?.kind === 'FolderPermissions' ? (change.payload as FolderPermissionsPayload) : undefined;
  const found = liveFolder(key, live);
  let entries: FolderAclEntry[];
  if (payload?.create !== undefined) {
    const parent = parentPath(path);
    entries = payload.create.inheritPermissions === 'None' || parent === undefined ? [] : [...(liveFolder(folderKey(parent), live)?.acl ?? [])];
  } else if (found !== undefined) entries = [...found.acl];
  else if (change !== undefined && change.previousName !== undefined) entries = [...(liveFolder(folderKey(change.previousName), live)?.acl ?? [])];
  else return undefined;
  if (payload === undefined) return entries;
  const same = (e: FolderAclEntry, p: { type: string; id: string }) => e.type === p.type && e.id === p.id;
  entries = entries.filter((e) => !payload.remove.some((r) => same(e, r)) && !payload.set.some((s) => same(e, s)));
  for (const s of payload.set) entries.push({ type: s.type, id: s.id, name: s.name, permissions: s.permissions as FolderAclEntry['permissions'] });
  return entries;
}

/** The ACL entries of users and groups as access sees them, by name (entries of other types grant no account anything). */
function accessEntries(acl: readonly FolderAclEntry[], live: LiveState): AccessEntry[] {
  const out: AccessEntry[] = [];
  for (const e of acl) {
    if (e.type !== 'User' && e.type !== 'Group') continue;
    const name = e.name ?? (e.type === 'User' ? live.transfer?.users?.byId.get(e.id)?.username : live.transfer?.groups?.byId.get(e.id)?.name);
    if (name === undefined) continue;
    out.push({ type: e.type, name, permissions: FOLDER_PERMISSIONS.filter((p) => e.permissions[p] === true) });
  }
  return out;
}

function liveFolder(key: string, live: LiveState): LiveFolder | undefined {
  return live.transfer?.folders.get(key) ?? live.transfer?.stepFolders?.get(key) ?? undefined;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}
