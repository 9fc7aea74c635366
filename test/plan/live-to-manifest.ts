import { stringify } from 'yaml';
import type { LiveState } from '../../src/live/model.js';
import { grantedPermissions } from '../../src/resources/resource-group-acl.js';
import { viewEntries } from '../../src/resources/folder-permissions.js';
import { normalizeParameters } from '../../src/services/automation/normalize.js';
import type { ResourceGroupAcl, Task } from '../../src/services/automation/types.js';
import type { LiveFolder } from '../../src/live/model.js';

/**
 * Test helper: a manifest written from a live object, the way `mftops import` will (ids to names,
 * server-numbered and read-only fields dropped, secrets as `${env:}` placeholders). Tests plan
 * such manifests against the same server and expect no change.
 */

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);
const MANIFEST_STEP_KINDS = ['Source', 'Process', 'Destination'];

export function taskManifest(task: Task, live: LiveState): Obj {
  const a = live.automation!;
  const hostName = (id: unknown) => a.hosts!.byId.get(String(id))!.Name;
  const scriptName = (id: unknown) => a.scripts!.byId.get(String(id))!.Name as string;
  const dateListName = (ref: unknown) => a.dateLists!.byId.get(String((ref as Obj).DateListID))!.Name as string;
  const placeholder = (name: string) => `\${env:${`${task.Name}_${name}`.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}}`;
  const parameters = (raw: unknown): Obj => {
    const out: Obj = {};
    for (const [name, p] of Object.entries(normalizeParameters(raw) as Obj)) {
      out[name] = isObj(p) && p.DisplayValue === '(suppressed)' ? placeholder(name) : String((p as Obj).value ?? '');
    }
    return out;
  };
  const spec: Obj = {};
  for (const key of ['Active', 'AR', 'CacheNames', 'UseDefStateCaching', 'Group', 'Info']) if (task[key] !== undefined) spec[key] = task[key];
  if (task.TT === 'COS') spec.TT = 'COS';
  const params = parameters(task.Parameters);
  if (Object.keys(params).length > 0) spec.Parameters = params;
  const schedules = task.Schedules?.Schedule ?? [];
  spec.Schedules = {
    Schedule: schedules.map((s) => {
      const out: Obj = {};
      for (const [k, v] of Object.entries(s)) {
        if (k === 'ID') continue;
        out[k] = k === 'DateListRef' ? (v as unknown[]).map(dateListName) : v;
      }
      return out;
    }),
  };
  const steps = task.steps ?? [];
  // Step kinds a manifest cannot express (For, If, ...): the manifest leaves steps out.
  if (steps.every((s) => MANIFEST_STEP_KINDS.includes(Object.keys(s)[0]!))) {
    spec.steps = steps.map((step) => {
      const [kind, body] = Object.entries(step)[0]!;
      const out: Obj = {};
      for (const [k, v] of Object.entries(body)) {
        if (k === 'ID') continue;
        if (k === 'HostID') out.Host = hostName(v);
        else if (k === 'ScriptID') out.Script = scriptName(v);
        else if (k === 'Parameters') {
          const p = parameters(v);
          if (Object.keys(p).length > 0) out.Parameters = p;
        } else out[k] = v;
      }
      return { [kind]: out };
    });
  }
  return { apiVersion: 'mftops/v1', kind: 'Task', metadata: { name: task.Name }, spec };
}

export function aclManifest(acl: ResourceGroupAcl): Obj {
  const name = `${acl.ResourceGroupName}-${acl.UserGroupName}`.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  return { apiVersion: 'mftops/v1', kind: 'ResourceGroupAcl', metadata: { name }, spec: { resourceGroup: acl.ResourceGroupName, userGroup: acl.UserGroupName, permissions: grantedPermissions(acl) } };
}

export function folderManifest(folder: LiveFolder): Obj {
  const entries = viewEntries(folder.acl).map((e) => ({
    [e.type === 'User' ? 'user' : 'group']: e.name,
    permissions: [...e.permissions.permissions],
    ...(e.permissions.sharePermissions.length > 0 ? { sharePermissions: [...e.permissions.sharePermissions] } : {}),
  }));
  return { apiVersion: 'mftops/v1', kind: 'FolderPermissions', metadata: { name: folder.folder.path }, spec: { mode: 'exact', entries } };
}

/** Documents as one multi-document YAML file. */
export function toYaml(documents: readonly Obj[]): string {
  return documents.map((d) => stringify(d)).join('---\n');
}
