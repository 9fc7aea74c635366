import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { Document, isCollection, isScalar, parseAllDocuments, visit } from 'yaml';
import { describe, expect, it } from 'vitest';
import { formatManifestText } from '../../src/manifest/canonical-form.js';
import { parseManifestFile } from '../../src/manifest/parse.js';
import { validateParsedFiles } from '../../src/manifest/validate.js';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples', 'manifests');

describe('the canonical form of a manifest file', () => {
  it('puts keys in the schema order at every depth, and keeps each comment with its key', () => {
    const text = [
      '# yaml-language-server: $schema=https://mftops.dev/schemas/task.schema.json',
      '# Sends the payroll file.',
      'spec:',
      '  # how it runs',
      '  steps:',
      '    - Source:',
      '        FileMask: "*.csv"   # only the CSVs',
      '        Host: payroll-sftp',
      '  Group: [Finance]',
      '  Active: 1',
      'metadata: { name: Payroll to bank }',
      'kind: Task',
      'apiVersion: mftops/v1',
      '',
    ].join('\n');
    expect(formatManifestText(text)).toBe(
      [
        '# yaml-language-server: $schema=https://mftops.dev/schemas/task.schema.json',
        '# Sends the payroll file.',
        'apiVersion: mftops/v1',
        'kind: Task',
        'metadata: { name: Payroll to bank }',
        'spec:',
        '  Active: 1',
        '  Group: [Finance]',
        '  # how it runs',
        '  steps:',
        '    - Source:',
        '        Host: payroll-sftp',
        '        FileMask: "*.csv" # only the CSVs',
        '',
      ].join('\n'),
    );
  });

  it('quotes what another YAML reader could take for a time, a boolean or an octal number, and nothing else', () => {
    const text = [
      'apiVersion: mftops/v1',
      'kind: Task',
      "metadata: { name: 'Nightly' }",
      'spec:',
      '  Active: 1',
      '  Parameters: { Flag: yes, Mode: "0755", Note: \'plain words\', At: 02:00 }',
      '  Schedules:',
      '    Schedule:',
      '      - Frequency: { Interval: [{ StartTime: 02:00 }] }',
      '',
    ].join('\n');
    const out = formatManifestText(text);
    expect(out).toContain('metadata: { name: Nightly }');
    expect(out).toContain('Parameters: { Flag: "yes", Mode: "0755", Note: plain words, At: "02:00" }');
    expect(out).toContain('Frequency: { Interval: [{ StartTime: "02:00" }] }');
  });

  it('puts the keys of a Policy in its schema order too', () => {
    const text = [
      'spec:',
      '  validations:',
      '    - message: m',
      '      expression: "true"',
      '  match: { names: [x], kinds: [Task] }',
      '  severity: warn',
      'metadata: { name: p }',
      'kind: Policy',
      'apiVersion: mftops/v1',
      '',
    ].join('\n');
    expect(formatManifestText(text)).toBe(
      [
        'apiVersion: mftops/v1',
        'kind: Policy',
        'metadata: { name: p }',
        'spec:',
        '  severity: warn',
        '  match: { kinds: [Task], names: [x] }',
        '  validations:',
        '    - expression: "true"',
        '      message: m',
        '',
      ].join('\n'),
    );
  });

  it('keeps every document of a file, its separators and the comments between them', () => {
    const text = readFileSync(join(EXAMPLES, 'access', 'resource-group-acls.yaml'), 'utf8');
    const shuffled = text.replace(/^(apiVersion: mftops\/v1)\n(kind: ResourceGroupAcl)$/gm, '$2\n$1');
    expect(shuffled).not.toBe(text);
    expect(formatManifestText(shuffled)).toBe(text);
  });

  it('leaves the key order of a document with aliases alone (an alias must follow its anchor)', () => {
    const text =
      'kind: ResourceGroupAcl\napiVersion: mftops/v1\nmetadata: { name: &n ops }\nspec: { userGroup: *n, resourceGroup: Operations, permissions: [] }\n';
    expect(formatManifestText(text)).toBe(text);
  });

  it('is what import writes, and the examples differ from it only in key order and quoting', () => {
    for (const file of readdirSync(EXAMPLES, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml'))) {
      const text = readFileSync(join(EXAMPLES, file), 'utf8');
      const out = formatManifestText(text);
      expect(dataOf(out), file).toEqual(dataOf(text));
      expect(commentsOf(out), file).toEqual(commentsOf(text));
      expect(formatManifestText(out), file).toBe(out);
    }
  });
});

/** A valid manifest document of every kind, as data: what the properties below write in many ways. */
const DOCUMENTS: readonly Record<string, unknown>[] = readdirSync(EXAMPLES, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((f) => parseAllDocuments(readFileSync(join(EXAMPLES, f), 'utf8')).map((d) => d.toJS() as Record<string, unknown>));

/** Strings that tempt a YAML writer: times, booleans, octals, indicators, spaces, line breaks. */
const awkward = fc.oneof(
  fc.constantFrom(
    '02:00',
    'yes',
    'No',
    'on',
    '0755',
    '0x1F',
    '1e3',
    '~',
    'null',
    '*.csv',
    '- x',
    'a: b',
    '#x',
    ' lead',
    'trail ',
    "it's",
    'say "hi"',
    'two\nlines',
    '${env:X}',
    '[x]',
    '{y}',
    '',
  ),
  fc.string({ maxLength: 12 }),
);

interface Writing {
  /** Seeds of the key orders and styles, one per node met. */
  readonly choices: readonly number[];
  /** A string put in as the task's description (or the ACL's label). */
  readonly text: string;
  readonly comments: boolean;
  readonly flow: boolean;
}

const writing = fc.record({ choices: fc.array(fc.nat(), { minLength: 64, maxLength: 64 }), text: awkward, comments: fc.boolean(), flow: fc.boolean() });

/** One document written with its keys in some order, its strings quoted some way, maybe flow, maybe with comments. */
function write(data: Record<string, unknown>, w: Writing): string {
  let n = 0;
  const next = (): number => w.choices[n++ % w.choices.length]! + n;
  const withText = structuredClone(data) as Record<string, any>;
  if (withText.kind === 'Task') withText.spec = { ...withText.spec, Info: { Notes: w.text, Description: w.text } };
  const doc = new Document(shuffleKeys(withText, next));
  visit(doc, {
    Scalar(_k, node) {
      if (typeof node.value === 'string') node.type = (['PLAIN', 'QUOTE_SINGLE', 'QUOTE_DOUBLE'] as const)[next() % 3];
    },
    Pair(_k, pair) {
      if (w.comments && isScalar(pair.key) && next() % 4 === 0) pair.key.commentBefore = ` about ${String(pair.key.value)}`;
    },
    Map(_k, node) {
      if (w.flow && !w.comments && next() % 3 === 0) node.flow = true;
    },
    Seq(_k, node) {
      if (w.flow && !w.comments && next() % 3 === 0) node.flow = true;
    },
  });
  return doc.toString();
}

/** Keys in a random order, but for the names a user gives (`Parameters`), whose order is the user's. */
function shuffleKeys(x: unknown, next: () => number, userNamed = false): unknown {
  if (Array.isArray(x)) return x.map((v) => shuffleKeys(v, next));
  if (x === null || typeof x !== 'object') return x;
  const entries = Object.entries(x);
  for (let i = userNamed ? 0 : entries.length - 1; i > 0; i--) {
    const j = next() % (i + 1);
    [entries[i], entries[j]] = [entries[j]!, entries[i]!];
  }
  return Object.fromEntries(entries.map(([k, v]) => [k, shuffleKeys(v, next, k === 'Parameters')]));
}

function dataOf(text: string): unknown[] {
  return parseAllDocuments(text).map((d) => d.toJS());
}

/** Every comment of a file, in no particular order. */
function commentsOf(text: string): string[] {
  const out: string[] = [];
  for (const doc of parseAllDocuments(text)) {
    const add = (c: string | null | undefined) => c && out.push(...c.split('\n').filter((l) => l.trim() !== ''));
    add(doc.commentBefore);
    add(doc.comment);
    visit(doc, (_k, node) => {
      if (isScalar(node) || isCollection(node)) {
        add(node.commentBefore);
        add(node.comment);
      }
    });
  }
  return out.sort();
}

describe('formatting, whatever way a manifest was written', () => {
  const cases = fc.tuple(fc.constantFrom(...DOCUMENTS), writing);

  it('changes no data and keeps every comment', () => {
    fc.assert(
      fc.property(cases, ([data, w]) => {
        const text = write(data, w);
        const out = formatManifestText(text);
        expect(dataOf(out)).toEqual(dataOf(text));
        expect(commentsOf(out)).toEqual(commentsOf(text));
      }),
      { numRuns: 150 },
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(cases, ([data, w]) => {
        const once = formatManifestText(write(data, w));
        expect(formatManifestText(once)).toBe(once);
      }),
      { numRuns: 150 },
    );
  });

  it('gives one text for one document, whatever its key order and quoting', () => {
    fc.assert(
      fc.property(fc.constantFrom(...DOCUMENTS), writing, fc.array(fc.nat(), { minLength: 64, maxLength: 64 }), (data, w, other) => {
        const a = formatManifestText(write(data, { ...w, comments: false, flow: false }));
        const b = formatManifestText(write(data, { ...w, choices: other, comments: false, flow: false }));
        expect(b).toBe(a);
      }),
      { numRuns: 150 },
    );
  });

  it('gives the validator the same manifest', () => {
    const codes = (text: string) => validateParsedFiles([parseManifestFile('/m.yaml', text)]).diagnostics.map((d) => d.code);
    fc.assert(
      fc.property(cases, ([data, w]) => {
        const text = write(data, w);
        expect(codes(formatManifestText(text))).toEqual(codes(text));
      }),
      { numRuns: 50 },
    );
  });
});
