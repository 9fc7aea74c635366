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
