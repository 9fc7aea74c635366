import { describe, expect, it } from 'vitest';
import { MAX_EXPRESSION_CHARS, MAX_EXPRESSION_COST, compileExpression, estimateCost } from '../../src/manifest/policy-expression.js';
import { nestedComprehension } from '../helpers/nested-comprehension.js';

describe('compileExpression', () => {
  it('compiles CEL once into a program evaluated per object', () => {
    const c = compileExpression("object.kind == 'Task' && object.spec.Active == 1");
    expect(c.ok).toBe(true);
    if (!c.ok) return;
    expect(c.program({ object: { kind: 'Task', spec: { Active: 1 } } })).toBe(true);
    expect(c.program({ object: { kind: 'Task', spec: { Active: 0 } } })).toBe(false);
  });

  it('a syntax error is a result with the parser reason on one line, never an exception', () => {
    const c = compileExpression('object.spec.Active ==');
    expect(c).toEqual({ ok: false, expression: 'object.spec.Active ==', reason: 'Unexpected token: EOF' });
  });

  it('refuses an expression longer than the limit without parsing it', () => {
    const long = `${'true && '.repeat(MAX_EXPRESSION_CHARS / 8)}true`;
    const c = compileExpression(long);
    expect(c.ok).toBe(false);
    if (c.ok) return;
    expect(c.reason).toContain(`at most ${MAX_EXPRESSION_CHARS}`);
  });

  it('deep nesting is a compile error, not a crash', () => {
    const c = compileExpression(`${'('.repeat(3000)}true${')'.repeat(3000)}`);
    expect(c.ok).toBe(false);
  });
});

describe('compileExpression, twice', () => {
  it('parses a text once: the loader and plan share the program', () => {
    const text = "change.action == 'create'";
    expect(compileExpression(text)).toBe(compileExpression(text));
  });
});

describe('compileExpression, the cost limit', () => {
  it('refuses comprehensions nested over list literals whose estimated cost is over the limit, naming the estimate', () => {
    const text = nestedComprehension(6, 40);
    const c = compileExpression(text);
    expect(c.ok).toBe(false);
    if (c.ok) return;
    expect(c.reason).toMatch(/^its estimated cost is [\d,]+ steps, over the limit of 1,000,000/);
  });

  it('keeps expressions whose lists are known only at evaluation, and small literal loops, under the limit', () => {
    for (const text of [
      "!object.spec.entries.exists(e, has(e.group) && e.group.endsWith('Partners') && 'admin' in e.permissions)",
      "access.all(a, a.via.exists(v, v.kind == 'group'))",
      "['a','b','c'].all(x, [1,2,3].exists(y, object.spec.Active == y))",
      nestedComprehension(2, 40),
    ]) {
      const c = compileExpression(text);
      expect(c.ok, text).toBe(true);
      if (c.ok) expect(estimateCost(c.program)).toBeLessThanOrEqual(MAX_EXPRESSION_COST);
    }
  });

  it('counts map, filter and cel.bind by the lists they make and bind', () => {
    const cost = (text: string) => {
      const c = compileExpression(text);
      if (!c.ok) throw new Error(c.reason);
      return estimateCost(c.program);
    };
    const hundred = `[${Array.from({ length: 100 }, (_, i) => i).join(',')}]`;
    // The list `map` makes is as long as its receiver, so a loop over it multiplies too.
    expect(cost(`${hundred}.map(x, x).all(a, ${hundred}.all(b, true))`)).toBeGreaterThan(100 * 100);
    expect(cost(`${hundred}.filter(x, x > 50).all(a, ${hundred}.all(b, true))`)).toBeGreaterThan(100 * 100);
    // A list bound to a name is as long where it is used: three loops over 100 elements.
    expect(cost(`cel.bind(l, ${hundred}, l.all(a, l.all(b, true)))`)).toBeGreaterThan(100 * 100);
    expect(compileExpression(`cel.bind(l, ${hundred}, l.all(a, l.all(b, l.all(c, true))))`)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('estimated cost'),
    });
  });
});
