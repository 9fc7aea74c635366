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
    const program = parse(expression);
    const cost = estimateCost(program);
    if (cost > MAX_EXPRESSION_COST) {
      return {
        ok: false,
        expression,
        reason: `its estimated cost is ${formatCost(cost)} steps, over the limit of ${formatCost(MAX_EXPRESSION_COST)} (loops over lists nested in loops multiply)`,
      };
    }
    return { ok: true, expression, program };
  } catch (err) {
    if (err instanceof ParseError) return { ok: false, expression, reason: oneLine(err.summary || err.message) };
    // A parser that overflows its stack on deep nesting: still the user's expression, not a bug of ours.
    if (err instanceof RangeError) return { ok: false, expression, reason: 'the expression is nested too deeply' };
    throw err;
  }
}

/**
 * Most steps an expression may be estimated to take (as Kubernetes' per-expression CEL cost
 * limit): CEL has no loops, but each comprehension (`all`, `exists`, `map`…) multiplies the work
 * of its body by the length of its list, so nesting them over list literals is exponential in the
 * length of the text. Lists whose length is known only at evaluation (`object.spec…`) count as one
 * element here; the time budget of each evaluation (src/policy/evaluate.ts) bounds those.
 */
export const MAX_EXPRESSION_COST = 1_000_000;

/**
 * An upper bound on a list (or map) value known from the text: its length and the bound of its
 * elements (undefined: not a list, or not known before evaluation).
 */
interface Shape {
  readonly length: number;
  readonly element: Shape | undefined;
}

/** The macros that run their body once per element of their receiver. */
const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

/**
 * The estimated steps of a program: one per node, a comprehension's body once per element of a
 * list of known length, comparisons and concatenations by the size of known operands.
 */
export function estimateCost(program: ParseResult): number {
  return estimate(program.ast, new Map()).cost;
}

type Node = { readonly op: string; readonly args: unknown };
type Scope = ReadonlyMap<string, Shape | undefined>;

function isNode(x: unknown): x is Node {
  return x !== null && typeof x === 'object' && !Array.isArray(x) && 'op' in x;
}

function estimate(node: unknown, scope: Scope): { cost: number; shape: Shape | undefined } {
  if (Array.isArray(node)) return { cost: node.reduce((sum: number, x) => sum + estimate(x, scope).cost, 0), shape: undefined };
  if (!isNode(node)) return { cost: 0, shape: undefined };
  const args = node.args;
  switch (node.op) {
    case 'id':
      return { cost: 1, shape: typeof args === 'string' ? scope.get(args) : undefined };
    case 'list': {
      const items = Array.isArray(args) ? args.map((a) => estimate(a, scope)) : [];
      return { cost: 1 + sum(items.map((i) => i.cost)), shape: { length: items.length, element: joinShapes(items.map((i) => i.shape)) } };
    }
    case 'map': {
      const entries = Array.isArray(args) ? args.map((e) => (Array.isArray(e) ? e.map((x) => estimate(x, scope)) : [])) : [];
      return { cost: 1 + sum(entries.flat().map((i) => i.cost)), shape: { length: entries.length, element: joinShapes(entries.map((e) => e[0]?.shape)) } };
    }
    case 'rcall':
      return estimateCall(node, scope);
    case '+':
    case '==':
    case '!=':
    case 'in': {
      const [a, b] = Array.isArray(args) ? args.map((x) => estimate(x, scope)) : [];
      const cost = 1 + (a?.cost ?? 0) + (b?.cost ?? 0) + deepSize(a?.shape) + deepSize(b?.shape);
      const shape =
        node.op === '+' && a?.shape && b?.shape
          ? { length: a.shape.length + b.shape.length, element: joinShapes([a.shape.element, b.shape.element]) }
          : undefined;
      return { cost, shape };
    }
    default:
      return { cost: 1 + estimate(args, scope).cost, shape: undefined };
  }
}

/** A receiver call: a comprehension multiplies its body by the receiver's length; `cel.bind` binds a shape. */
function estimateCall(node: Node, scope: Scope): { cost: number; shape: Shape | undefined } {
  const [name, receiver, callArgs] = Array.isArray(node.args) ? node.args : [];
  const params: unknown[] = Array.isArray(callArgs) ? callArgs : [];
  const variable = isNode(params[0]) && params[0].op === 'id' && typeof params[0].args === 'string' ? params[0].args : undefined;
  if (typeof name === 'string' && COMPREHENSIONS.has(name) && variable !== undefined) {
    const range = estimate(receiver, scope);
    const inner = new Map(scope).set(variable, range.shape?.element);
    const body = params.slice(1).map((p) => estimate(p, inner));
    const times = range.shape?.length ?? 1;
    const cost = range.cost + times * (1 + sum(body.map((b) => b.cost)));
    const shape = name === 'map' ? { length: times, element: body[body.length - 1]?.shape } : name === 'filter' ? range.shape : undefined;
    return { cost, shape };
  }
  if (name === 'bind' && variable !== undefined) {
    const value = estimate(params[1], scope);
    const body = estimate(params[2], new Map(scope).set(variable, value.shape));
    return { cost: 1 + value.cost + body.cost, shape: body.shape };
  }
  return { cost: 1 + estimate(receiver, scope).cost + estimate(params, scope).cost, shape: undefined };
}

/** The bound of any one of several values: the longest length, the joined elements. */
function joinShapes(shapes: readonly (Shape | undefined)[]): Shape | undefined {
  let out: Shape | undefined;
  for (const s of shapes) {
    if (s === undefined) continue;
    out = out === undefined ? s : { length: Math.max(out.length, s.length), element: joinShapes([out.element, s.element]) };
  }
  return out;
}

/** The values in a bounded value, nested lists counted to the bottom. */
function deepSize(shape: Shape | undefined): number {
  return shape === undefined ? 0 : shape.length * (1 + deepSize(shape.element));
}

function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

function formatCost(n: number): string {
  return n > 1e15 ? n.toExponential(1) : Math.round(n).toLocaleString('en-US');
}

/** The first line of a cel-js message (the rest is a caret drawing of the expression). */
export function oneLine(message: string): string {
  return message.split('\n')[0]!.trim();
}

/** The variables a policy expression may read besides `object`: each needs a plan. */
export const PLAN_VARIABLES: readonly string[] = ['oldObject', 'change', 'access', 'keys', 'usedKeys'];

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
