import { encodeTask } from './automation-wire.js';
import type { Json, JsonObject } from './json.js';
import { cloneJson, isJsonObject } from './json.js';
import type { Variants } from './state.js';
import { SUPPRESSED, forEachStep, storedParameters } from './validate-task.js';

/** What the caller may do with a task; fills the read-only `x*` fields. */
export interface TaskRights {
  readonly edit: boolean;
  readonly addEditDelete: boolean;
  readonly run: boolean;
}

/** Stored parameters in the `automation.parameters` form; secrets come out suppressed. */
export function renderParameters(block: Json | undefined, form: Variants['automation.parameters']): JsonObject {
  const params = storedParameters(block);
  switch (form) {
    case 'map': {
      const out: JsonObject = {};
      for (const p of params) out[p.Name] = p.Secret === 1 ? { value: '', DisplayValue: SUPPRESSED } : { value: p.value, DisplayValue: p.value };
      return out;
    }
    case 'list':
      return {
        Parameter: params.map((p): JsonObject => (p.Secret === 1 ? { Name: p.Name, value: '', DisplayValue: SUPPRESSED } : { Name: p.Name, value: p.value })),
      };
    default: {
      const never: never = form;
      throw new Error(`unknown parameters form ${String(never)}`);
    }
  }
}

/** A stored task as GET /tasks answers it: parameters rendered, secrets hidden, read-only fields added, in the variants' reading. */
export function renderTask(task: JsonObject, v: Variants, rights: TaskRights): JsonObject {
  const out = cloneJson(task);
  const form = v['automation.parameters'];
  out.Parameters = renderParameters(task.Parameters, form);
  forEachStep(out, (body, kind) => {
    if (kind === 'Process' && isJsonObject(body.Parameters)) body.Parameters = renderParameters(body.Parameters, form);
    // The REST API never returns a secret: a step password comes out suppressed, or not at all.
    if ((kind === 'Source' || kind === 'Destination') && typeof body.Password === 'string' && body.Password !== '') {
      if (v['automation.stepPasswords'] === 'omitted') delete body.Password;
      else body.Password = SUPPRESSED;
    }
  });
  const schedules = isJsonObject(task.Schedules) && Array.isArray(task.Schedules.Schedule) ? task.Schedules.Schedule : [];
  out.Renamed = task.Renamed === true;
  out.xAddEditDelete = rights.addEditDelete;
  out.xAlter = rights.edit;
  out.xRun = rights.run;
  out.Scheduled = task.Active === 1 && schedules.length > 0;
  out.Watched = false;
  return encodeTask(out, v);
}
