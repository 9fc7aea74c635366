import { describe, expect, it } from 'vitest';
import { exportConfig, importConfig } from '../../src/emulator/config-xml.js';
import type { Json, JsonObject } from '../../src/emulator/json.js';
import { isJsonObject } from '../../src/emulator/json.js';
import { createState } from '../../src/emulator/seed.js';
import type { AutomationState, HostRecord } from '../../src/emulator/state.js';
import { ACL_PERMISSION_KEYS } from '../../src/emulator/state.js';
import { isStepKind } from '../../src/emulator/validate-task.js';
import { exampleSeed } from './helpers.js';

/*
 * exportConfig was rewritten for speed (issue 8: one list of pieces joined once instead of a
 * string per element joined into its parent). GET /config must not change by one byte: the
 * export below is the previous implementation, kept verbatim as the reference.
 */
const INT_KEYS = new Set([
  'AR',
  'Active',
  'UseDefStateCaching',
  'NextEID',
  'Multi',
  'FailIfNoSuccessInSched',
  'OnlyUntilFirstSuccess',
  'RunEvenIfNotif',
  'Secret',
  'ConnTimeoutSecs',
  'DataTimeoutSecs',
  'MxBy',
  'MxFi',
  'RescanSecs',
  'RetryCount',
  'RetryTimeoutSecs',
  'Rsm',
  'DeleteOrig',
  'FolderType',
  'SyDel',
  'BlindDL',
  'DelRename',
  'NewFilesOnly',
  'Passive',
  'RetryIfNoFiles',
  'ReuseSSL',
  'SearchSubdirs',
  'SetFileAttr',
  'SyF',
  'SyT',
  'UDMxBy',
  'UDMxFi',
  'Unzip',
  'UseLCaseComp',
  'UseWinCopyFileAPI',
  'OverwriteOrig',
  'IsDest',
  'DefRetryCount',
  'DefRetryTimeoutSecs',
  'FirewallPort',
  'MDNPollCount',
  'MDNPollTimeoutSecs',
  'FIPSOnly',
  'IgnoreCertProbs',
  'UseSigningCertForDecrypt',
  'DeleteIfNewerThanDays',
  'DeleteIfOlderThanDays',
  'PauseRerunSecs',
  'POPPort',
  'SMTPPort',
  'UseSMTPInfo',
  'ProxyPort',
  'UseHTTPAuth',
  'Port',
  'AdjDST',
  'DefMxBy',
  'DefMxFi',
  'DefRescanSecs',
  'DefWinCopyFileAPI',
  'DelOldStateDays',
  'StateCacheTime',
  'UseNotif',
  'CustomDirColDate',
  'CustomDirColFilename',
  'CustomDirSkipBottom',
  'CustomDirSkipTop',
  'DefConnTimeoutSecs',
  'DefDataTimeoutSecs',
  'UTCOffset',
  'CustomDir',
  'DefBlindDL',
  'DefBlindUL',
  'DefPassive',
  'DefSetFileAttr',
  'DotNET',
  'NATUseServerIPForData',
  'OptimizeSSHBuf',
  'RenameAfterUpload',
  'CmpL',
  ...ACL_PERMISSION_KEYS,
]);
const BOOL_KEYS = new Set(['Renamed', 'IsAdmin']);
const STRING_ARRAY_KEYS = new Set(['Group', 'DayOfWeek', 'MemberOf']);
const OBJECT_ARRAY_KEYS = new Set(['Schedule', 'Interval', 'DateListRef', 'When', 'NextAction', 'comp', 'Parameter', 'Entries']);
function scalarType(key: string): 'string' | 'number' | 'boolean' {
  if (INT_KEYS.has(key) || key.startsWith('UseDef')) return 'number';
  if (BOOL_KEYS.has(key)) return 'boolean';
  return 'string';
}
function childType(key: string): 'object' | 'strings' | 'objects' {
  if (STRING_ARRAY_KEYS.has(key)) return 'strings';
  if (OBJECT_ARRAY_KEYS.has(key)) return 'objects';
  return 'object';
}
const XML_NAME = /^[A-Za-z][A-Za-z0-9_.-]*$/;
const BAD_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
const isPlainName = (key: string): boolean => XML_NAME.test(key) && !key.toLowerCase().startsWith('xml');
const escapeText = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#13;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');
const escapeAttr = (s: string): string => escapeText(s).replace(/"/g, '&quot;');
function isStepItem(v: Json): v is JsonObject {
  if (!isJsonObject(v)) return false;
  const keys = Object.keys(v);
  return keys.length === 1 && isStepKind(keys[0]!) && isJsonObject(v[keys[0]!]);
}
function encodeElement(tag: string, obj: JsonObject, indent: string): string {
  const attrs: string[] = [];
  const children: string[] = [];
  const steps: string[] = [];
  const types: string[] = [];
  const extra: JsonObject = {};
  const inner = `${indent}  `;
  for (const [k, v] of Object.entries(obj)) {
    if (!isPlainName(k) || v === null) {
      extra[k] = v;
      continue;
    }
    if (k === 'steps' && Array.isArray(v) && v.every(isStepItem)) {
      if (v.length === 0) types.push('steps:objects');
      for (const step of v as JsonObject[]) {
        const [kind, body] = Object.entries(step)[0]!;
        steps.push(encodeElement(kind, body as JsonObject, inner));
      }
      continue;
    }
    if (k === 'steps' || isStepKind(k)) {
      extra[k] = v;
      continue;
    }
    if (typeof v === 'string') {
      if (BAD_CHARS.test(v)) extra[k] = v;
      else {
        attrs.push(`${k}="${escapeAttr(v)}"`);
        if (scalarType(k) !== 'string') types.push(`${k}:string`);
      }
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) extra[k] = v;
      else {
        attrs.push(`${k}="${String(v)}"`);
        if (scalarType(k) !== 'number') types.push(`${k}:number`);
      }
    } else if (typeof v === 'boolean') {
      attrs.push(`${k}="${v ? '1' : '0'}"`);
      if (scalarType(k) !== 'boolean') types.push(`${k}:boolean`);
    } else if (Array.isArray(v)) {
      if (v.length === 0) types.push(`${k}:${childType(k) === 'strings' ? 'strings' : 'objects'}`);
      else if (v.every((x) => typeof x === 'string' && !BAD_CHARS.test(x))) {
        for (const x of v as string[]) children.push(`${inner}<${k}>${escapeText(x)}</${k}>`);
        if (childType(k) !== 'strings') types.push(`${k}:strings`);
      } else if (v.every(isJsonObject)) {
        for (const x of v as JsonObject[]) children.push(encodeElement(k, x, inner));
        if (childType(k) !== 'objects') types.push(`${k}:objects`);
      } else extra[k] = v;
    } else {
      children.push(encodeElement(k, v, inner));
      if (childType(k) !== 'object') types.push(`${k}:object`);
    }
  }
  if (types.length > 0) attrs.push(`_types="${types.join(' ')}"`);
  if (Object.keys(extra).length > 0) attrs.push(`_extra="${escapeAttr(JSON.stringify(extra))}"`);
  const open = `${indent}<${tag}${attrs.length > 0 ? ` ${attrs.join(' ')}` : ''}`;
  const body = [...children, ...steps];
  return body.length === 0 ? `${open}/>` : `${open}>\n${body.join('\n')}\n${indent}</${tag}>`;
}
function section(tag: string, itemTag: string, items: readonly JsonObject[]): string {
  if (items.length === 0) return `  <${tag}/>`;
  return `  <${tag}>\n${items.map((i) => encodeElement(itemTag, i, '    ')).join('\n')}\n  </${tag}>`;
}
function referenceExport(state: AutomationState, appVersion: string): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<Config Version="${escapeAttr(appVersion)}" SchedulerEnabled="${state.schedulerEnabled ? '1' : '0'}" NextID="${state.nextId}">`,
    section('Users', 'User', state.users),
    section('UserGroups', 'UserGroup', state.userGroups),
    section('ResourceGroups', 'ResourceGroup', state.resourceGroups),
    section('ACLs', 'ACL', state.acls),
    state.hosts.length === 0 ? '  <Hosts/>' : `  <Hosts>\n${state.hosts.map((h) => encodeElement(h.type, h.fields, '    ')).join('\n')}\n  </Hosts>`,
    section('CustomScripts', 'CustomScript', state.customScripts),
    section('StandardScripts', 'StandardScript', state.standardScripts),
    section('DateLists', 'DateList', state.dateLists),
    section('GlobalParameters', 'GlobalParameter', state.globalParameters),
    section('Tasks', 'Task', state.tasks),
    '</Config>',
    '',
  ].join('\n');
}

// --- generated states -----------------------------------------------------------------------------

/** A small deterministic generator (tests must be repeatable). */
function random(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s = (Math.imul(s, 1103515245) + 12345) & 0x7fffffff;
    return s % n;
  };
}

const STRINGS = [
  '',
  'plain',
  'a & b',
  '<tag>',
  'say "hi"',
  "it's",
  'line\nbreak',
  'cr\r\n',
  'tab\there',
  'ctrl\u0001char',
  'noncharacter\uFFFE',
  'é ü 漢字 😀',
  '&amp; already',
  ']]>',
  '  spaced  ',
];
const KEYS = [
  'Name',
  'Desc',
  'Active',
  'Port',
  'Renamed',
  'IsAdmin',
  'Group',
  'DayOfWeek',
  'Schedule',
  'Parameter',
  'Info',
  'Custom',
  'UseDefX',
  'xmlThing',
  '1bad',
  'with space',
  '__proto__',
  'steps',
  'Source',
  'Process',
];

function randomValue(rnd: (n: number) => number, depth: number): Json {
  switch (rnd(depth > 2 ? 5 : 9)) {
    case 0:
      return STRINGS[rnd(STRINGS.length)]!;
    case 1:
      return [0, 1, -3, 2.5, 1e21, Number.NaN, Number.POSITIVE_INFINITY, 7][rnd(8)]!;
    case 2:
      return rnd(2) === 0;
    case 3:
      return null;
    case 4:
      return String(rnd(1000));
    case 5:
      return Array.from({ length: rnd(3) }, () => STRINGS[rnd(STRINGS.length)]!);
    case 6:
      return Array.from({ length: rnd(3) }, () => randomObject(rnd, depth + 1));
    case 7:
      return [STRINGS[rnd(STRINGS.length)]!, randomObject(rnd, depth + 1), [1]];
    default:
      return randomObject(rnd, depth + 1);
  }
}

function randomObject(rnd: (n: number) => number, depth: number): JsonObject {
  const out: JsonObject = {};
  const n = rnd(6);
  for (let i = 0; i < n; i++) {
    const key = KEYS[rnd(KEYS.length)]!;
    if (key === 'steps' && rnd(2) === 0) {
      out.steps = Array.from({ length: rnd(3) }, () => ({ [['Source', 'Process', 'Destination'][rnd(3)]!]: randomObject(rnd, depth + 1) }));
    } else Object.defineProperty(out, key, { value: randomValue(rnd, depth), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function randomState(seed: number): AutomationState {
  const rnd = random(seed);
  const state = createState(exampleSeed(), 'current').automation;
  const items = (n: number): JsonObject[] => Array.from({ length: n }, () => randomObject(rnd, 0));
  state.tasks = [...state.tasks, ...items(rnd(8))];
  state.hosts = [...state.hosts, ...items(rnd(3)).map((fields): HostRecord => ({ type: 'SSHFTP', fields }))];
  state.customScripts = items(rnd(3));
  state.globalParameters = rnd(2) === 0 ? [] : items(2);
  state.dateLists = rnd(2) === 0 ? [] : items(1);
  state.schedulerEnabled = rnd(2) === 0;
  return state;
}

describe('exportConfig', () => {
  it('writes exactly what the previous implementation wrote, for the seed and 300 generated states', () => {
    const seeded = createState(exampleSeed(), 'current').automation;
    expect(exportConfig(seeded, '2025.1.0')).toBe(referenceExport(seeded, '2025.1.0'));
    const empty = createState(exampleSeed(), 'legacy').automation;
    empty.tasks = [];
    empty.hosts = [];
    empty.users = [];
    expect(exportConfig(empty, 'v"1&')).toBe(referenceExport(empty, 'v"1&'));
    for (let seed = 1; seed <= 300; seed++) {
      const state = randomState(seed);
      expect(exportConfig(state, '2025.1.0'), `state ${seed}`).toBe(referenceExport(state, '2025.1.0'));
    }
  });

  it('reads back through importConfig into the same tasks and hosts', () => {
    const state = createState(exampleSeed(), 'current').automation;
    const imported = importConfig(exportConfig(state, '2025.1.0'), 'siLock');
    expect(imported.ok).toBe(true);
    if (!imported.ok) return;
    expect(imported.config.tasks).toEqual(state.tasks);
    expect(imported.config.hosts).toEqual(state.hosts);
  });
});
