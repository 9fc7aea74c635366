import { EvaluationError } from '@marcbachmann/cel-js';
import { compileExpression, oneLine } from '../manifest/policy-expression.js';

// One evaluation of one policy expression, apart from the rest of src/policy so that the
// evaluation worker (src/app/policy-worker.ts) loads only cel-js and this: it starts faster.

/** One evaluation to run: an expression (compiled by `compileExpression`) on one context. */
export interface PolicyCheck {
  readonly expression: string;
  /** The variables (`object`, …): plain data, at most MAX_INPUT_CHARS of JSON. */
  readonly context: Record<string, unknown>;
}

/** What one evaluation gives: true or false, or why there is no answer. */
export type Outcome = { readonly ok: true; readonly value: boolean } | { readonly ok: false; readonly reason: string };

/** One evaluation of a check (the expression compiled once per process). */
export function evaluateCheck(check: PolicyCheck): Outcome {
  const compiled = compileExpression(check.expression);
  if (!compiled.ok) return { ok: false, reason: `the expression does not compile: ${compiled.reason}` };
  return runProgram(compiled.program, check.context);
}

/** One evaluation; anything but a boolean result is an error (never a pass). */
function runProgram(program: (context: Record<string, unknown>) => unknown, context: Record<string, unknown>): Outcome {
  let value: unknown;
  try {
    value = program(context);
  } catch (err) {
    if (err instanceof EvaluationError) return { ok: false, reason: oneLine(err.summary || err.message) };
    if (err instanceof RangeError) return { ok: false, reason: 'the evaluation nested too deeply' };
    throw err;
  }
  if (typeof value !== 'boolean') return { ok: false, reason: `the expression gave ${describe(value)}, not true or false` };
  return { ok: true, value };
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'bigint' || typeof value === 'number') return `a number (${String(value)})`;
  if (typeof value === 'string') return 'a string';
  if (Array.isArray(value)) return 'a list';
  return 'a map';
}
