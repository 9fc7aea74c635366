import type { Json, JsonObject } from './json.js';
import { cloneJson, isJsonObject } from './json.js';
import type { Profile } from './state.js';
import { SUPPRESSED, forEachStep, storedParameters } from './validate-task.js';

/** What the caller may do with a task; fills the read-only `x*` fields. */
export interface TaskRights {
  readonly edit: boolean;
  readonly addEditDelete: boolean;
  readonly run: boolean;
}

/** Stored parameters in the profile's wire form; secrets come out suppressed. */
export function renderParameters(block: Json | undefined, profile: Profile): JsonObject {
  const params = storedParameters(block);
  switch (profile) {
    case 'current': {
      const out: JsonObject = {};
      for (const p of params) out[p.Name] = p.Secret === 1 ? { value: '', DisplayValue: SUPPRESSED } : { value: p.value, DisplayValue: p.value };
      return out;
    }
    case 'legacy':
      return { Parameter: params.map((p): JsonObject => (p.Secret === 1 ? { Name: p.Name, value: '', DisplayValue: SUPPRESSED } : { Name: p.Name, value: p.value })) };
    default: {
      const never: never = profile;
      throw new Error(`unknown profile ${String(never)}`);
    }
  }
}

/** A stored task as GET /tasks answers it: parameters rendered, read-only fields added. */
export function renderTask(task: JsonObject, profile: Profile, rights: TaskRights): JsonObject {
  const out = cloneJson(task);
  out.Parameters = renderParameters(task.Parameters, profile);
  forEachStep(out, (body, kind) => {
    if (kind === 'Process' && isJsonObject(body.Parameters)) body.Parameters = renderParameters(body.Parameters, profile);
    // The REST API never returns a secret: step passwords come out suppressed, like parameters.
    if ((kind === 'Source' || kind === 'Destination') && typeof body.Password === 'string' && body.Password !== '') body.Password = SUPPRESSED;
  });
  const schedules = isJsonObject(task.Schedules) && Array.isArray(task.Schedules.Schedule) ? task.Schedules.Schedule : [];
  out.Renamed = task.Renamed === true;
  out.xAddEditDelete = rights.addEditDelete;
  out.xAlter = rights.edit;
  out.xRun = rights.run;
  out.Scheduled = task.Active === 1 && schedules.length > 0;
  out.Watched = false;
  return out;
}
