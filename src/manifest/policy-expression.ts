import { ParseError, parse } from '@marcbachmann/cel-js';
import type { ParseResult } from '@marcbachmann/cel-js';

/**
 * A policy expression compiled once (cel-js `parse`) and evaluated per change by
 * src/policy/evaluate.ts. `ok: false` carries the parser's one-line reason, for a validate
 * diagnostic at the expression (MF311).
 */
export type CompiledExpression =
  | { readonly ok: true; readonly expression: string; readonly program: ParseResult }
  | { readonly ok: false; readonly expression: string; readonly reason: string };

/** Longest expression compiled: CEL has no loops, so input size bounds the work of parsing and evaluating. */
export const MAX_EXPRESSION_CHARS = 4096;

/** Programs by expression: validate parses each expression once, and plan evaluates that parse. */
const compiledByText = new Map<string, CompiledExpression>();

/**
 * Compiles a CEL expression, once per process for a given text. A syntax error is a result,
 * never an exception.
 */
export function compileExpression(expression: string): CompiledExpression {
  let compiled = compiledByText.get(expression);
  if (compiled === undefined) compiledByText.set(expression, (compiled = compileOnce(expression)));
  return compiled;
}

function compileOnce(expression: string): CompiledExpression {
  if (expression.length > MAX_EXPRESSION_CHARS) {
    return { ok: false, expression, reason: `the expression has ${expression.length} characters; at most ${MAX_EXPRESSION_CHARS} are allowed` };
  }
  try {
    return { ok: true, expression, program: parse(expression) };
  } catch (err) {
    if (err instanceof ParseError) return { ok: false, expression, reason: oneLine(err.summary || err.message) };
    // A parser that overflows its stack on deep nesting: still the user's expression, not a bug of ours.
    if (err instanceof RangeError) return { ok: false, expression, reason: 'the expression is nested too deeply' };
    throw err;
  }
}

/** The first line of a cel-js message (the rest is a caret drawing of the expression). */
export function oneLine(message: string): string {
  return message.split('\n')[0]!.trim();
}

/** The variables a policy expression may read besides `object`: each needs a plan. */
export const PLAN_VARIABLES: readonly string[] = ['oldObject', 'change', 'access'];

/**
 * The identifiers a compiled expression names anywhere (variables, and the loop variables of
 * macros such as `exists(e, …)`), read from the cel-js AST.
 */
export function referencedIdentifiers(program: ParseResult): Set<string> {
  const out = new Set<string>();
  const walk = (x: unknown): void => {
    if (Array.isArray(x)) {
      for (const y of x) walk(y);
      return;
    }
    if (x === null || typeof x !== 'object' || !('op' in x)) return;
    const node = x as { op: unknown; args: unknown };
    if (node.op === 'id' && typeof node.args === 'string') out.add(node.args);
    else walk(node.args);
  };
  walk(program.ast);
  return out;
}

/**
 * Whether an expression reads `object` only, so that it can be evaluated without a server
 * (validate) and on a live object (drift). A loop variable named like a plan variable counts as
 * that variable: the check errs on the side of needing a plan. False for one that does not compile.
 */
export function needsOnlyObject(expression: string): boolean {
  const compiled = compileExpression(expression);
  if (!compiled.ok) return false;
  const names = referencedIdentifiers(compiled.program);
  return !PLAN_VARIABLES.some((v) => names.has(v));
}
