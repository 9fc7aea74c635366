import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { SCHEMA_BASE_URL, findSchemasDir, getValidator, getValidatorByFile, readSchema } from '../../src/manifest/schemas.js';

const ROOT = join(import.meta.dirname, '..', '..');
const KIND_FILES = ['task.schema.json', 'resource-group-acl.schema.json', 'folder-permissions.schema.json'];

/** Every `properties` entry of a schema, with its path, across `$defs` too. */
function* propertiesOf(node: unknown, path: string): Generator<[string, Record<string, unknown>]> {
  if (typeof node !== 'object' || node === null) return;
  const record = node as Record<string, unknown>;
  const props = record.properties as Record<string, Record<string, unknown>> | undefined;
  for (const [name, sub] of Object.entries(props ?? {})) {
    yield [`${path}/${name}`, sub];
    yield* propertiesOf(sub, `${path}/${name}`);
  }
  for (const key of ['$defs', 'items', 'additionalProperties']) {
    const child = record[key];
    if (key === '$defs' && child) for (const [n, d] of Object.entries(child as object)) yield* propertiesOf(d, `#/$defs/${n}`);
    else if (child && typeof child === 'object') yield* propertiesOf(child, `${path}/${key}`);
  }
}

function exampleDocuments(): unknown[] {
  const dir = join(ROOT, 'examples', 'manifests');
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml'));
  return files.flatMap((f) => parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJS()));
}

const task = (spec: Record<string, unknown>) => ({ apiVersion: 'mftops/v1', kind: 'Task', metadata: { name: 'T' }, spec });
const source = (fields: Record<string, unknown>) => task({ steps: [{ Source: { Host: 'h', ...fields } }] });

describe('manifest schemas', () => {
  it('compile under ajv strict mode', () => {
    for (const kind of ['Task', 'ResourceGroupAcl', 'FolderPermissions'] as const) expect(typeof getValidator(kind)).toBe('function');
    expect(typeof getValidatorByFile('manifest.schema.json')).toBe('function');
  });

  it('each have an $id under the published base URL that ends in their own file name', () => {
    const files = readdirSync(findSchemasDir()).filter((f) => f.endsWith('.json'));
    expect(files).toEqual(expect.arrayContaining([...KIND_FILES, 'manifest.schema.json', 'config.schema.json', 'plan.schema.json']));
    expect(SCHEMA_BASE_URL).toBe('https://mftops.dev/schemas/');
    for (const file of files) expect([file, readSchema(file).$id]).toEqual([file, `${SCHEMA_BASE_URL}${file}`]);
  });

  it('give every property a description for editors', () => {
    const missing: string[] = [];
    for (const file of [...KIND_FILES, 'manifest.schema.json']) {
      for (const [path, sub] of propertiesOf(readSchema(file), file)) {
        if (typeof sub.description !== 'string' || sub.description.length < 5) missing.push(path);
      }
    }
    expect(missing).toEqual([]);
  });

  it('forbid unknown fields in every object', () => {
    const open: string[] = [];
    const visit = (node: unknown, path: string) => {
      if (typeof node !== 'object' || node === null) return;
      const r = node as Record<string, unknown>;
      const isObject = r.type === 'object' || (Array.isArray(r.type) && r.type.includes('object'));
      // Next actions are passed through as written (the reference documents no fields).
      if (isObject && r.properties !== undefined && r.additionalProperties !== false && r.unevaluatedProperties !== false) open.push(path);
      for (const [k, v] of Object.entries(r)) visit(v, `${path}/${k}`);
    };
    for (const file of KIND_FILES) visit(readSchema(file), file);
    expect(open).toEqual([]);
  });

  it('cover every Source step field of automation API §2.5', () => {
    // Copied from the reference by hand, minus the server-numbered ID.
    const spec = `Account AddCom AddComAX Bucket ClientCertSHA1 ClientCertStore ClientCertSubject ClientKeyID DLInteg
      DestFileAttr DownloadGroup ExFile ExFo FileMask FolderID FolderName HostID MD5File MDNFilenameToSend MDNPath
      PartnerName Password Path RenameTo SubjectMatch Username XS ConnTimeoutSecs DataTimeoutSecs MxBy MxFi RescanSecs
      RetryCount RetryTimeoutSecs Rsm AB DeleteOrig FolderType Format MD5Get Sort SyDel Type Criteria BlindDL DelRename
      NewFilesOnly Passive RetryIfNoFiles ReuseSSL SearchSubdirs SetFileAttr SyF SyT UDMxBy UDMxFi Unzip UseLCaseComp
      UseWinCopyFileAPI UseDefAB UseDefBlindDL UseDefBucket UseDefClientCert UseDefClientKey UseDefConnTimeoutSecs
      UseDefDLInteg UseDefDataTimeoutSecs UseDefMD5File UseDefMD5Get UseDefPartner UseDefPassive UseDefRescanSecs
      UseDefRetryCount UseDefRetryTimeoutSecs UseDefReuseSSL UseDefRsm UseDefSetFileAttr UseDefSort UseDefUser
      UseDefWinCopyFileAPI UseDefXS`.split(/\s+/);
    const props = Object.keys((readSchema('task.schema.json').$defs as Record<string, { properties: object }>).source!.properties);
    expect(spec.filter((f) => !props.includes(f))).toEqual([]);
  });

  it.each([
    ['ConnTimeoutSecs', 0, 32000],
    ['DataTimeoutSecs', 0, 32000],
    ['MxFi', 0, 99999],
    ['RescanSecs', 0, 999],
    ['RetryCount', 0, 32000],
    ['RetryTimeoutSecs', 0, 32000],
  ])('holds %s to the bounds of the reference (%i..%i)', (field, min, max) => {
    const validate = getValidator('Task');
    expect(validate(source({ [field]: min }))).toBe(true);
    expect(validate(source({ [field]: max }))).toBe(true);
    expect(validate(source({ [field]: min - 1 }))).toBe(false);
    expect(validate(source({ [field]: max + 1 }))).toBe(false);
  });

  it('takes 0, 1, true and false for 0/1 fields and nothing else', () => {
    const validate = getValidator('Task');
    for (const v of [0, 1, true, false]) expect(validate(task({ Active: v, AR: v, UseDefStateCaching: v }))).toBe(true);
    for (const v of [2, -1, 'true', '1', null]) expect(validate(task({ Active: v }))).toBe(false);
  });

  it('takes only ${env:} or ${file:} references for passwords', () => {
    const validate = getValidator('Task');
    expect(validate(source({ Password: '${env:SFTP_PASSWORD}' }))).toBe(true);
    expect(validate(source({ Password: '${file:secrets/sftp.txt}' }))).toBe(true);
    for (const bad of ['hunter2', '${env:}', 'prefix ${env:X}', '$ENV_X']) expect(validate(source({ Password: bad }))).toBe(false);
  });

  it('lets the union schema for editors accept every example and reject what the kind schemas reject', () => {
    const union = getValidatorByFile('manifest.schema.json');
    const docs = exampleDocuments();
    expect(docs.length).toBeGreaterThan(20);
    for (const doc of docs) expect(union(doc), JSON.stringify(union.errors)).toBe(true);
    expect(union({ apiVersion: 'mftops/v1', kind: 'Tsk', metadata: { name: 'A' }, spec: {} })).toBe(false);
    expect(union(source({ RetryCount: 32001 }))).toBe(false);
    expect(union({ apiVersion: 'mftops/v1', kind: 'FolderPermissions', metadata: { name: 'relative' }, spec: { mode: 'exact', entries: [] } })).toBe(false);
  });
});
