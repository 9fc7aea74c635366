import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DROPPED_DEFAULTS, isDroppedDefault } from '../../src/import/dropped-defaults.js';
import { createImportCatalog, createSecretNamer, taskToManifest } from '../../src/import/to-manifest.js';
import type { Task } from '../../src/services/automation/types.js';

const catalog = createImportCatalog({ hosts: [{ ID: '1', Name: 'partner-sftp', type: 'SSHFTP' }], scripts: [], dateLists: [] });
const spec = (task: Task) => taskToManifest(task, catalog, createSecretNamer()).document.spec as Record<string, any>;

describe('the server defaults import leaves out', () => {
  it('drops every register default from the part it belongs to, in any spelling the server answers', () => {
    const at = (part: string) => Object.fromEntries(DROPPED_DEFAULTS.filter((d) => d.part === part).map((d) => [d.field, d.value]));
    const task: Task = {
      Name: 't',
      Active: 1,
      ...at('task'),
      Schedules: { Schedule: [{ ...at('schedule'), Frequency: { Interval: [{ StartTime: '01:00' }] } }] },
      steps: [{ Source: { HostID: '1', Path: '/in', ...at('step') } }, { Destination: { HostID: '1', Path: '/out', NewFilesOnly: false, Unzip: '0' } }],
    } as Task;
    expect(spec(task)).toEqual({
      Active: 1,
      Schedules: { Schedule: [{ Frequency: { Interval: [{ StartTime: '01:00' }] } }] },
      steps: [{ Source: { Host: 'partner-sftp', Path: '/in' } }, { Destination: { Host: 'partner-sftp', Path: '/out' } }],
    });
  });

  it('keeps a value other than the default, and zeros whose blank value nothing documents', () => {
    const task = {
      Name: 't',
      Active: 0,
      AR: 1,
      CAS: 'N',
      Schedules: { Schedule: [{ Multi: 1, Frequency: { Interval: [{ StartTime: '01:00' }] } }] },
      steps: [
        { Source: { HostID: '1', NewFilesOnly: 1, UseDefRetryCount: 0, Passive: 0, BlindDL: 0, RetryCount: 0, DeleteOrig: 0 } },
        // A Process step's fields are not in the register.
        { Process: { ScriptID: '9', IsDest: 0 } },
      ],
    } as unknown as Task;
    const s = spec(task);
    expect(s.Active).toBe(0);
    expect(s.AR).toBe(1);
    expect(s.CAS).toBe('N');
    expect(s.Schedules.Schedule[0].Multi).toBe(1);
    expect(s.steps[0].Source).toEqual({ Host: 'partner-sftp', NewFilesOnly: 1, UseDefRetryCount: 0, Passive: 0, BlindDL: 0, RetryCount: 0, DeleteOrig: 0 });
    expect(s.steps[1].Process.IsDest).toBe(0);
  });

  it('knows the blank CAS in both spellings, and nothing about fields outside the register', () => {
    expect(isDroppedDefault('task', 'CAS', 'EMPTY')).toBe(true);
    expect(isDroppedDefault('task', 'CAS', '')).toBe(true);
    expect(isDroppedDefault('step', 'UseDefRetryCount', 0)).toBe(false);
    expect(isDroppedDefault('schedule', 'NewFilesOnly', 0)).toBe(false);
  });

  it('is listed in docs/server-variants.md, row by row, with the same value and source', () => {
    const doc = readFileSync(new URL('../../docs/server-variants.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## Defaults import leaves out'));
    const rows = [...section.matchAll(/^\| (task|schedule|step) \| `([^`]+)` \| `([^`]*)` \| (.+) \|$/gm)].map((m) => `${m[1]} ${m[2]} ${m[3]} ${m[4]}`);
    expect(rows).toEqual(DROPPED_DEFAULTS.map((d) => `${d.part} ${d.field} ${JSON.stringify(d.value)} ${d.source}`));
  });
});
