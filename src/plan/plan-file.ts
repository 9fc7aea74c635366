import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, basename } from 'node:path';
import { getValidatorByFile } from '../manifest/schemas.js';
import { MftopsError } from '../errors.js';
import { orderPlanKeys } from '../render/plan-json.js';
import { PLAN_FORMAT_VERSION, type Plan } from './model.js';
import { checkPlan, ERRORED_PLAN } from './plan-check.js';

/**
 * The plan file is the plan as JSON plus a `checksum` of everything else in it, so a plan edited
 * by hand (or cut short) is refused instead of applied. Keys keep the model's order; the text is
 * stable for the same plan.
 */
export function serializePlan(plan: Plan): string {
  if (plan.errored) throw new PlanFileError(`cannot save the plan: ${ERRORED_PLAN}`);
  const ordered = orderPlanKeys(plan);
  const body = JSON.stringify(ordered, null, 2);
  return `${JSON.stringify({ ...ordered, checksum: checksumOf(body) }, null, 2)}\n`;
}

/** Write atomically (temporary file, then rename), so a reader never sees half a plan. */
export function writePlanFile(path: string, plan: Plan): void {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(tmp, serializePlan(plan), { mode: 0o644 });
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new MftopsError(`cannot write plan file ${path} (${code})`);
  }
}

export class PlanFileError extends MftopsError {}


/**
 * Read a plan file and check, in order: it is JSON, it is a plan of a format this version reads,
 * it is intact (checksum), and it matches the schema. Each failure says which in one line.
 */
export function readPlanFile(path: string): Plan {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new PlanFileError(code === 'ENOENT' ? `plan file ${path} not found` : `cannot read plan file ${path} (${code ?? 'error'})`);
  }
  return parsePlan(text, path);
}

export function parsePlan(text: string, path: string): Plan {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new PlanFileError(`${path} is not a plan file: it is not JSON (was it written by mftops plan --out?)`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data) || !('formatVersion' in data)) {
    throw new PlanFileError(`${path} is not a plan file: no formatVersion`);
  }
  const { checksum, ...rest } = data as Record<string, unknown>;
  if (rest['formatVersion'] !== PLAN_FORMAT_VERSION) {
    throw new PlanFileError(
      `${path} has plan format version ${JSON.stringify(rest['formatVersion'])}; this mftops reads version ${PLAN_FORMAT_VERSION}: make the plan again with this version`,
    );
  }
  if (typeof checksum !== 'string' || checksum !== checksumOf(JSON.stringify(rest, null, 2))) {
    throw new PlanFileError(`${path} was changed after mftops wrote it (checksum mismatch): make the plan again instead of editing it`);
  }
  // Before the schema (which says a file is never errored), so the refusal says why.
  if (rest['errored'] === true) throw new PlanFileError(`${path} cannot be applied: ${ERRORED_PLAN}`);
  const validatePlanShape = getValidatorByFile('plan.schema.json');
  if (!validatePlanShape(data)) {
    const e = validatePlanShape.errors?.[0];
    throw new PlanFileError(`${path} is not a valid plan file: ${e ? `${e.instancePath || '/'} ${e.message ?? 'is invalid'}` : 'schema mismatch'}`);
  }
  const plan = rest as unknown as Plan;
  const problems = checkPlan(plan);
  if (problems.length > 0) throw new PlanFileError(`${path} cannot be applied: ${problems[0]}`);
  return plan;
}

function checksumOf(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}
