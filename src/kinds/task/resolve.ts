import type { AutomationLiveState } from '../../live/model.js';
import type { JsonPath, Parameters, Schedule, Step, TaskManifest } from '../../manifest/types.js';
import { stepKindOf } from '../../manifest/types.js';
import type { DesiredTask, JsonObject, JsonValue } from '../../resources/model.js';
import { didYouMean } from '../diagnostics.js';
import { isPlainJson, shareJson } from '../share-json.js';
import type { Resolution } from '../kind.js';
import { nameRecorder, names, reporter } from '../resolve-names.js';
import type { Note, Report } from '../resolve-names.js';
import { sameHostType } from './plan.js';

/** What a suppressed secret parameter shows as; sent with a secret so the server keeps it secret. */
export const SUPPRESSED = '(suppressed)';

/**
 * A task's names turned into automation server ids (pure): resource groups, date lists of its
 * schedules, hosts and scripts of its steps. Every unknown name is a diagnostic at the place it
 * is written, with a "did you mean".
 */
export function resolveTask(m: TaskManifest, a: AutomationLiveState): Resolution<DesiredTask> {
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
            r.report(
              'MF404',
              ['spec', 'Group', i],
              `no resource group named \`${name}\` on the automation server${didYouMean(
                name,
                names(a.resourceGroups, (g) => g.Name),
              )}`,
            );
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
        body[key] = shareJson(value);
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

function resolveSchedule(s: Schedule, index: number, a: AutomationLiveState, report: Report, note: Note): JsonObject {
  // Without date lists there is nothing to resolve: the manifest's schedule itself, not a copy.
  if (s.DateListRef === undefined && isPlainJson(s)) return s as unknown as JsonObject;
  const out: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(s) as [string, unknown][]) {
    if (value === undefined) continue;
    if (key !== 'DateListRef') {
      out[key] = shareJson(value);
      continue;
    }
    out.DateListRef = (value as readonly string[]).map((name, j) => {
      const list = a.dateLists?.byName.get(name.toLowerCase());
      if (!list) {
        report(
          'MF403',
          ['spec', 'Schedules', 'Schedule', index, 'DateListRef', j],
          `no date list named \`${name}\` on the automation server${didYouMean(
            name,
            names(a.dateLists, (d) => d.Name),
          )}`,
        );
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
          if (!host) out.Type = shareJson(value);
          else if (!sameHostType(String(value), host.type)) {
            report(
              'MF410',
              [...path, 'Type'],
              `\`Type\` is \`${String(value)}\` but host \`${host.Name}\` is of type \`${host.type}\``,
              'leave `Type` out: it is taken from the host',
            );
          }
        } else out[key] = shareJson(value);
      }
      break;
    }
    case 'Process': {
      for (const [key, value] of Object.entries(body)) {
        if (value === undefined) continue;
        if (key === 'Script') {
          const script = a.scripts?.byName.get(String(value).toLowerCase());
          if (!script)
            report(
              'MF402',
              [...path, 'Script'],
              `no custom or standard script named \`${String(value)}\` on the automation server${didYouMean(
                String(value),
                names(a.scripts, (s) => s.Name),
              )}`,
            );
          if (script) note('script', String(value), String(script.ID ?? ''));
          out.ScriptID = script ? String(script.ID ?? '') : '';
        } else if (key === 'ScriptID') {
          if (!a.scripts?.byId.has(String(value)))
            report(
              'MF402',
              [...path, 'ScriptID'],
              `no custom or standard script has ID \`${String(value)}\` on the automation server`,
              'name the script with `Script` instead: ids differ between servers',
            );
          out.ScriptID = String(value);
        } else if (key === 'Parameters') out.Parameters = wireParameters(value as Parameters);
        else out[key] = shareJson(value);
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
    if (!host)
      report(
        'MF401',
        [...path, 'Host'],
        `no host named \`${body.Host}\` on the automation server${didYouMean(
          body.Host,
          names(a.hosts, (h) => h.Name),
        )}`,
      );
    return host;
  }
  if (typeof body.HostID === 'string') {
    const host = a.hosts?.byId.get(body.HostID);
    if (!host)
      report(
        'MF401',
        [...path, 'HostID'],
        `no host has ID \`${body.HostID}\` on the automation server`,
        'name the host with `Host` instead: ids differ between servers',
      );
    return host;
  }
  return undefined;
}
