import { describe, expect, it } from 'vitest';
import type { AnySchemaObject } from 'ajv/dist/2020.js';
import { getValueVocabulary, readSchema } from '../../src/manifest/schemas.js';
import { describeFieldChange, describeFieldValue, describeInnerValues, isFlagSchema, MEANINGS_KEYWORD, resolveRef } from '../../src/manifest/value-words.js';

const ROOT = readSchema('task.schema.json');

/** Every property schema of the task schema, with its name, wherever it is declared. */
function allProperties(): { name: string; schema: AnySchemaObject }[] {
  const out: { name: string; schema: AnySchemaObject }[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    if (record.properties !== null && typeof record.properties === 'object') {
      for (const [name, schema] of Object.entries(record.properties as Record<string, AnySchemaObject>)) out.push({ name, schema: resolveRef(schema, ROOT) });
    }
    for (const v of Object.values(record)) walk(v);
  };
  walk(ROOT);
  return out;
}

/** An enumerated integer field: an `enum` of integers only (a 0/1 flag also allows true/false, and is not one). */
function isIntegerEnum(schema: AnySchemaObject): boolean {
  const e = schema.enum as unknown[] | undefined;
  return Array.isArray(e) && e.length > 0 && e.every((v) => Number.isInteger(v));
}

describe('the words of task fields, from task.schema.json', () => {
  const vocabulary = getValueVocabulary('Task');

  it('gives every enumerated integer field a meaning for every value, and no meaning for a value the enum does not allow', () => {
    const enumerated = allProperties().filter((p) => isIntegerEnum(p.schema));
    expect(enumerated.map((p) => p.name).sort()).toEqual(['DeleteOrig', 'FolderType', 'Multi', 'SyDel']);
    for (const { name, schema } of enumerated) {
      const meanings = schema[MEANINGS_KEYWORD] as Record<string, string> | undefined;
      expect(meanings, name).toBeDefined();
      expect(Object.keys(meanings!).sort(), name).toEqual((schema.enum as number[]).map(String).sort());
      for (const text of Object.values(meanings!)) expect(text.trim(), name).not.toBe('');
    }
  });

  it('finds each enumerated field and each flag at the paths field changes use', () => {
    for (const [path, value] of [
      ['steps[0].Source.DeleteOrig', 0],
      ['steps[0].Source.DeleteOrig', 1],
      ['steps[0].Source.DeleteOrig', 2],
      ['steps[4].Source.SyDel', 1],
      ['steps[0].Source.FolderType', -1],
      ['Schedules.Schedule[2].Multi', 2],
    ] as const) {
      expect(describeFieldValue(vocabulary, path, value)?.form, `${path} ${value}`).toBe('meaning');
    }
    const flags = allProperties().filter((p) => isFlagSchema(p.schema));
    expect(flags.length).toBeGreaterThan(40);
    for (const path of [
      'Active',
      'AR',
      'Schedules.Schedule[0].OnlyUntilFirstSuccess',
      'steps[1].Source.UDMxFi',
      'steps[2].Destination.OverwriteOrig',
      'steps[1].Process.IsDest',
    ]) {
      expect(describeFieldValue(vocabulary, path, 1), path).toEqual({ form: 'flag', text: 'true' });
      expect(describeFieldValue(vocabulary, path, false), path).toEqual({ form: 'flag', text: 'false' });
    }
  });

  it('says what the reference says: DeleteOrig 1 is delete, 2 rename or move; Multi 1 the pre-midnight part', () => {
    expect(describeFieldChange(vocabulary, 'steps[0].Source.DeleteOrig', 1, 2)).toEqual({ form: 'meaning', before: 'delete', after: 'rename or move' });
    expect(describeFieldValue(vocabulary, 'Schedules.Schedule[0].Multi', 1)).toEqual({ form: 'meaning', text: 'pre-midnight part' });
    // The reference lists FolderType's codes without saying what they are: the words say so.
    expect(describeFieldValue(vocabulary, 'steps[0].Source.FolderType', 110)).toEqual({ form: 'meaning', text: 'meaning not in the reference' });
  });

  it('has no words for other fields, for codes the schema does not list, or for markers', () => {
    expect(describeFieldValue(vocabulary, 'steps[0].Source.RetryCount', 3)).toBeUndefined();
    expect(describeFieldValue(vocabulary, 'Info.Description', 'x')).toBeUndefined();
    expect(describeFieldValue(vocabulary, 'steps[0].Source.DeleteOrig', 7)).toBeUndefined();
    expect(describeFieldValue(vocabulary, 'Active', { $sensitive: true })).toBeUndefined();
    expect(describeFieldChange(vocabulary, 'steps[0].Source.Path', '/a', '/b')).toBeUndefined();
    // Only the side with words has them.
    expect(describeFieldChange(vocabulary, 'steps[0].Source.DeleteOrig', undefined, 2)).toEqual({ form: 'meaning', after: 'rename or move' });
  });

  it('finds the codes and flags inside a whole step or schedule, by their path below the field', () => {
    expect(describeInnerValues(vocabulary, 'steps[0]', { Source: { Host: 'a', DeleteOrig: 2, NewFilesOnly: 1 } })).toEqual([
      { path: 'Source.DeleteOrig', form: 'meaning', text: 'rename or move' },
      { path: 'Source.NewFilesOnly', form: 'flag', text: 'true' },
    ]);
    expect(describeInnerValues(vocabulary, 'Schedules', { Schedule: [{ Multi: 1 }] })).toEqual([
      { path: 'Schedule[0].Multi', form: 'meaning', text: 'pre-midnight part' },
    ]);
    expect(describeInnerValues(vocabulary, 'steps', [{ Destination: { OverwriteOrig: 0 } }])).toEqual([
      { path: '[0].Destination.OverwriteOrig', form: 'flag', text: 'false' },
    ]);
    expect(describeInnerValues(vocabulary, 'steps[0]', { Source: { $sensitive: true } })).toEqual([]);
    expect(describeInnerValues(vocabulary, 'Active', 1)).toEqual([]);
  });
});
