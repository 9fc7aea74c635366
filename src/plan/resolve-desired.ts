import type { AutomationLiveState, LiveState, NamedIndex, TransferLiveState } from '../live/model.js';
import type { FolderPermissionsManifest, JsonPath, Manifest, Parameters, ResourceGroupAclManifest, Schedule, Step, TaskManifest } from '../manifest/types.js';
import { stepKindOf } from '../manifest/types.js';
import { toJson } from '../resources/common.js';
import { sameHostType } from '../resources/task.js';
import type { DesiredAcl, DesiredEntry, DesiredFolder, DesiredState, DesiredTask } from './desired.js';
import { createPlanDiagnostic, didYouMean } from './diagnostics.js';
import type { PlanDiagnostic, PlanDiagnosticCode } from './diagnostics.js';
import { formatAddress, type JsonObject, type JsonValue, type NameKind, type ResolvedName } from './model.js';

/** What a suppressed secret parameter shows as; sent with a secret so the server keeps it secret. */
export const SUPPRESSED = '(suppressed)';

/**
 * Turns names into server ids (pure): hosts, scripts, date lists, resource groups of tasks and
 * ACLs, user groups of ACLs, users and groups of folder entries. Every unknown name is a
 * diagnostic at the place it is written, with a "did you mean"; all of them are reported in one
 * run. An object with any unknown name is left out of the desired state.
 */
export function resolveDesired(manifests: readonly Manifest[], live: LiveState): { desired: DesiredState; diagnostics: PlanDiagnostic[] } {
  const diagnostics: PlanDiagnostic[] = [];
  const tasks: DesiredTask[] = [];
  const acls: DesiredAcl[] = [];
  const folders: DesiredFolder[] = [];
  const skipped: Manifest[] = [];
  const missingService = { automation: [] as Manifest[], transfer: [] as Manifest[] };

  for (const m of manifests) {
    switch (m.kind) {
      case 'Task': {
        if (!live.automation) {
          missingService.automation.push(m);
          skipped.push(m);
        } else pushIfResolved(tasks, resolveTask(m, live.automation), diagnostics, skipped);
        break;
      }
      case 'ResourceGroupAcl': {
        if (!live.automation) {
          missingService.automation.push(m);
          skipped.push(m);
        } else pushIfResolved(acls, resolveAcl(m, live.automation), diagnostics, skipped);
        break;
      }
      case 'FolderPermissions': {
        if (!live.transfer) {
          missingService.transfer.push(m);
          skipped.push(m);
        } else pushIfResolved(folders, resolveFolder(m, live.transfer), diagnostics, skipped);
        break;
      }
      default: {
        const never: never = m;
        throw new Error(`unknown manifest kind ${JSON.stringify(never)}`);
      }
    }
  }
  for (const service of ['automation', 'transfer'] as const) {
    const list = missingService[service];
    const first = list[0];
    if (!first) continue;
    diagnostics.push(
      createPlanDiagnostic('MF411', first.source, `${list.length} manifest${list.length === 1 ? '' : 's'} need${list.length === 1 ? 's' : ''} the ${service} service, which this environment does not configure`, {
        hint: `add \`${service}:\` with url and credentials to the environment in mftops.yaml`,
      }),
    );
  }
  return { desired: { tasks, acls, folders, skipped }, diagnostics };
}

interface Resolution<T extends { readonly manifest: Manifest }> {
  readonly value: T;
  readonly diagnostics: readonly PlanDiagnostic[];
}

function pushIfResolved<T extends { readonly manifest: Manifest }>(into: T[], r: Resolution<T>, diagnostics: PlanDiagnostic[], skipped: Manifest[]): void {
  diagnostics.push(...r.diagnostics);
  if (r.diagnostics.length === 0) into.push(r.value);
  else skipped.push(r.value.manifest);
}

/** Collects a manifest's diagnostics at paths inside its document. */
function reporter(m: Manifest): { report: (code: PlanDiagnosticCode, path: JsonPath, message: string, hint?: string) => void; list: PlanDiagnostic[] } {
  const list: PlanDiagnostic[] = [];
  return {
    list,
    report: (code, path, message, hint) => list.push(createPlanDiagnostic(code, m.sourceMap.locate(path), message, { hint, address: formatAddress(m.kind, m.name) })),
  };
}

/** Records what one object's names resolved to, each name once (by kind and case-folded name). */
type Note = (kind: NameKind, name: string, id?: string) => void;

function nameRecorder(): { note: Note; list: ResolvedName[] } {
  const list: ResolvedName[] = [];
  const seen = new Set<string>();
  return {
    list,
    note: (kind, name, id) => {
      const key = `${kind}\u0000${name.toLowerCase()}`;
      // An object the server lists without an id gives nothing to check by id.
      if (seen.has(key) || id === '') return;
      seen.add(key);
      list.push(id === undefined ? { kind, name } : { kind, name, id });
    },
  };
}

function names<T>(index: NamedIndex<T> | undefined, nameOf: (x: T) => string | undefined): string[] {
  if (!index) return [];
  return index.items.map(nameOf).filter((n): n is string => typeof n === 'string' && n !== '');
}

// ------------------------------------------------------------------------------------------ Task

function resolveTask(m: TaskManifest, a: AutomationLiveState): Resolution<DesiredTask> {
  const r = reporter(m);
  const n = nameRecorder();
  const body: Record<string, JsonValue> = { Name: m.name };
  for (const [key, value] of Object.entries(m.spec) as [string, unknown][]) {
    if (value === undefined) continue;
    switch (key) {
      case 'Group':
        body.Group = (value as readonly string[]).map((name, i) => {
          const group = a.resourceGroups?.byName.get(name.toLowerCase());
          if (!group) {
            r.report('MF404', ['spec', 'Group', i], `no resource group named \`${name}\` on the automation server${didYouMean(name, names(a.resourceGroups, (g) => g.Name))}`);
            return name;
          }
          n.note('resourceGroup', name);
          return group.Name;
        });
        break;
      case 'Parameters':
        body.Parameters = wireParameters(value as Parameters);
        break;
      case 'Schedules':
        body.Schedules = { Schedule: (value as { Schedule: readonly Schedule[] }).Schedule.map((s, i) => resolveSchedule(s, i, a, r.report, n.note)) };
        break;
      case 'steps':
        body.steps = (value as readonly Step[]).map((s, i) => resolveStep(s, i, a, r.report, n.note));
        break;
      default:
        body[key] = toJson(value);
    }
  }
  return { value: { manifest: m, body, resolved: n.list }, diagnostics: r.list };
}

/** Manifest parameters (`{value, secret}`) as the API takes them. */
export function wireParameters(params: Parameters): JsonObject {
  const out: Record<string, JsonValue> = {};
  for (const [name, p] of Object.entries(params)) out[name] = p.secret ? { value: p.value, DisplayValue: SUPPRESSED } : { value: p.value };
  return out;
}

type Report = (code: PlanDiagnosticCode, path: JsonPath, message: string, hint?: string) => void;

function resolveSchedule(s: Schedule, index: number, a: AutomationLiveState, report: Report, note: Note): JsonObject {
  const out: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(s) as [string, unknown][]) {
    if (value === undefined) continue;
    if (key !== 'DateListRef') {
      out[key] = toJson(value);
      continue;
    }
    out.DateListRef = (value as readonly string[]).map((name, j) => {
      const list = a.dateLists?.byName.get(name.toLowerCase());
      if (!list) {
        report('MF403', ['spec', 'Schedules', 'Schedule', index, 'DateListRef', j], `no date list named \`${name}\` on the automation server${didYouMean(name, names(a.dateLists, (d) => d.Name))}`);
        return { DateListID: '' };
      }
      note('dateList', name, String(list.ID ?? ''));
      return { DateListID: String(list.ID ?? '') };
    });
  }
  return out;
}

function resolveStep(step: Step, index: number, a: AutomationLiveState, report: Report, note: Note): JsonObject {
  const kind = stepKindOf(step);
  const body = (step as unknown as Record<string, Record<string, unknown>>)[kind]!;
  const path: JsonPath = ['spec', 'steps', index, kind];
  const out: Record<string, JsonValue> = {};
  switch (kind) {
    case 'Source':
    case 'Destination': {
      const host = findHost(body, path, a, report);
      if (host && typeof body.Host === 'string') note('host', body.Host, host.ID);
      for (const [key, value] of Object.entries(body)) {
        if (value === undefined) continue;
        if (key === 'Host' || key === 'HostID') {
          out.HostID = host ? host.ID : String(value);
          if (host) out.Type = host.type;
        } else if (key === 'Type') {
          if (!host) out.Type = toJson(value);
          else if (!sameHostType(String(value), host.type)) {
            report('MF410', [...path, 'Type'], `\`Type\` is \`${String(value)}\` but host \`${host.Name}\` is of type \`${host.type}\``, 'leave `Type` out: it is taken from the host');
          }
        } else out[key] = toJson(value);
      }
      break;
    }
    case 'Process': {
      for (const [key, value] of Object.entries(body)) {
        if (value === undefined) continue;
        if (key === 'Script') {
          const script = a.scripts?.byName.get(String(value).toLowerCase());
          if (!script) report('MF402', [...path, 'Script'], `no custom or standard script named \`${String(value)}\` on the automation server${didYouMean(String(value), names(a.scripts, (s) => s.Name))}`);
          if (script) note('script', String(value), String(script.ID ?? ''));
          out.ScriptID = script ? String(script.ID ?? '') : '';
        } else if (key === 'ScriptID') {
          if (!a.scripts?.byId.has(String(value))) report('MF402', [...path, 'ScriptID'], `no custom or standard script has ID \`${String(value)}\` on the automation server`, 'name the script with `Script` instead: ids differ between servers');
          out.ScriptID = String(value);
        } else if (key === 'Parameters') out.Parameters = wireParameters(value as Parameters);
        else out[key] = toJson(value);
      }
      break;
    }
    default: {
      const never: never = kind;
      throw new Error(`unknown step kind ${String(never)}`);
    }
  }
  return { [kind]: out };
}

function findHost(body: Record<string, unknown>, path: JsonPath, a: AutomationLiveState, report: Report) {
  if (typeof body.Host === 'string') {
    const host = a.hosts?.byName.get(body.Host.toLowerCase());
    if (!host) report('MF401', [...path, 'Host'], `no host named \`${body.Host}\` on the automation server${didYouMean(body.Host, names(a.hosts, (h) => h.Name))}`);
    return host;
  }
  if (typeof body.HostID === 'string') {
    const host = a.hosts?.byId.get(body.HostID);
    if (!host) report('MF401', [...path, 'HostID'], `no host has ID \`${body.HostID}\` on the automation server`, 'name the host with `Host` instead: ids differ between servers');
    return host;
  }
  return undefined;
}

// ------------------------------------------------------------------------------ ResourceGroupAcl

function resolveAcl(m: ResourceGroupAclManifest, a: AutomationLiveState): Resolution<DesiredAcl> {
  const r = reporter(m);
  const n = nameRecorder();
  const { resourceGroup, userGroup, permissions } = m.spec;
  const group = a.resourceGroups?.byName.get(resourceGroup.toLowerCase());
  if (!group) {
    r.report('MF404', ['spec', 'resourceGroup'], `no resource group named \`${resourceGroup}\` on the automation server${didYouMean(resourceGroup, names(a.resourceGroups, (g) => g.Name))}`);
  } else n.note('resourceGroup', resourceGroup);
  let userGroupName = userGroup;
  const known = a.userGroups?.names.get(userGroup.toLowerCase());
  if (known !== undefined) userGroupName = known;
  else if (a.userGroups?.readable) {
    r.report('MF405', ['spec', 'userGroup'], `no user group named \`${userGroup}\` on the automation server${didYouMean(userGroup, a.userGroups.names.values())}`, 'user group names are case-sensitive on the server');
  }
  return { value: { manifest: m, resourceGroup: group?.Name ?? resourceGroup, userGroup: userGroupName, permissions, resolved: n.list }, diagnostics: r.list };
}

// ----------------------------------------------------------------------------- FolderPermissions

function resolveFolder(m: FolderPermissionsManifest, t: TransferLiveState): Resolution<DesiredFolder> {
  const r = reporter(m);
  const n = nameRecorder();
  const entries: DesiredEntry[] = [];
  m.spec.entries.forEach((e, index) => {
    const permissions = e.permissions;
    const sharePermissions = e.sharePermissions ?? [];
    if (e.user !== undefined) {
      const user = t.users?.byName.get(e.user.toLowerCase());
      if (!user) r.report('MF406', ['spec', 'entries', index, 'user'], `no user named \`${e.user}\` on the transfer server${didYouMean(e.user, names(t.users, (u) => u.username))}`);
      else {
        n.note('user', e.user, user.id);
        entries.push({ type: 'User', name: e.user, id: user.id, permissions, sharePermissions, index });
      }
    } else if (e.group !== undefined) {
      const group = t.groups?.byName.get(e.group.toLowerCase());
      if (!group) r.report('MF407', ['spec', 'entries', index, 'group'], `no group named \`${e.group}\` on the transfer server${didYouMean(e.group, names(t.groups, (g) => g.name))}`);
      else {
        n.note('group', e.group, group.id);
        entries.push({ type: 'Group', name: e.group, id: group.id, permissions, sharePermissions, index });
      }
    }
  });
  return { value: { manifest: m, path: m.name, entries, resolved: n.list }, diagnostics: r.list };
}
