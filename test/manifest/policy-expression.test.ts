import { describe, expect, it } from 'vitest';
import { MAX_EXPRESSION_CHARS, compileExpression } from '../../src/manifest/policy-expression.js';

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
