import { describe, expect, it } from 'vitest';
import type { Change, Plan } from '../../src/plan/model.js';
import { renderPlanText } from '../../src/render/plan-text.js';
import { FOLDER_RENAME } from '../fixtures/plans/folder-rename.js';
import { loadFixturePlan } from '../fixtures/plans/load.js';

const plan = loadFixturePlan('every-action.json');
const text = renderPlanText(plan, { color: false });
const lines = text.split('\n');

function planWith(changes: readonly Change[], extra: Partial<Plan> = {}): Plan {
  const summary = { create: 0, update: 0, replace: 0, delete: 0, 'no-op': 0, blocked: 0 };
  for (const c of changes) summary[c.action]++;
  return { ...plan, changes, summary, ...extra };
}

/** The lines under an object's header, up to the next blank line. */
function block(address: string): string[] {
  const start = lines.findIndex((l) => l.includes(` ${address} `));
  expect(start, `no header for ${address}`).toBeGreaterThanOrEqual(0);
  const end = lines.indexOf('', start);
  return lines.slice(start, end);
}

describe('renderPlanText', () => {
  it('gives each changed object a header with its symbol and lists no no-op', () => {
    expect(lines).toContain('+ Task/Globex inbound will be created');
    expect(lines).toContain('~ Task/Payroll to bank will be updated');
    expect(lines).toContain('-/+ Task/Globex outbound must be replaced');
    expect(lines).toContain('- FolderPermissions/Distribution/Initech/Inbound will be deleted');
    expect(lines).toContain('! Task/Legacy EDI router is blocked');
    for (const unchanged of [
      'Task/Acme outbound',
      'Task/Nightly cleanup',
      'ResourceGroupAcl/Partners/Partner Managers',
      'FolderPermissions/Distribution/Initech/Outbound',
    ]) {
      expect(text).not.toContain(unchanged);
    }
    expect(lines[0]).toBe('mftops plan for environment "prod": 13 objects compared, 4 unchanged.');
  });

  it('ends with the Terraform-like count line', () => {
    expect(lines.at(-2)).toBe('Plan: 2 to create, 4 to update, 1 to replace, 1 to delete, 1 blocked.');
    expect(text.endsWith('\n')).toBe(true);
  });

  it('shows field differences as ~ old → new, + value, - value', () => {
    expect(block('Task/Legacy EDI router')).toContain('    ~ Active: true → false');
    expect(block('Task/Globex inbound')).toContain('    + Group: ["Partners"]');
    expect(block('Task/Payroll to bank')).toContain('    ~ Schedules.Schedule[0].Frequency.Interval[0].StartTime: "02:00" → "03:30"');
  });

  it('says enumerated codes with their meaning and flags as true/false, at the top level and inside a whole step', () => {
    expect(block('Task/Bank statements in')).toContain('    ~ steps[0].Source.DeleteOrig: 1 (delete) → 2 (rename or move)');
    expect(block('Task/Globex inbound')).toContain('    + Active: true');
    expect(block('Task/Globex inbound')).toContain(
      '    + steps[0]: {"Source": {"Host": "globex-ftp", "Path": "/download", "FileMask": "*.xml", "DeleteOrig": "1 (delete)"}}',
    );
    expect(block('Task/Globex inbound')).toContain(
      '    + steps[1]: {"Destination": {"Host": "xfer", "Path": "/Distribution/Globex/Inbound", "OverwriteOrig": false}}',
    );
  });

  it('marks sensitive fields and never prints a secret reference from the payload', () => {
    expect(block('Task/Payroll to bank')).toContain('    ~ Parameters.ApiKey: (sensitive)');
    expect(block('Task/Globex inbound')).toContain('    + steps[0].Source.Password: (sensitive)');
    expect(text).not.toContain('BANK_API_KEY');
    expect(text).not.toContain('GLOBEX_FTP_PASSWORD');
  });

  it('says why for replace, delete and blocked, and which field forces the replacement', () => {
    const replace = block('Task/Globex outbound');
    expect(replace[1]).toBe('    # `Group` cannot change after creation: the task is deleted and created again');
    expect(replace).toContain('    ~ Group: ["Partners"] → ["Operations"] # forces replacement');
    expect(block('FolderPermissions/Distribution/Initech/Inbound')[1]).toBe(
      '    # no manifest manages this folder in scope, and FolderPermissions are pruned: its removable entries are deleted',
    );
    expect(block('Task/Legacy EDI router')[1]).toBe('    # advanced (TT=COS) tasks cannot be changed through the API');
  });

  it('names the old name of a renamed object', () => {
    expect(lines).toContain('~ Task/Bank statements in will be updated (renamed from "Bank statements import")');
  });

  it('shows a folder rename: the old path in the header, the path change as a field', () => {
    const out = renderPlanText(planWith([FOLDER_RENAME]), { color: false }).split('\n');
    const start = out.indexOf('~ FolderPermissions/Distribution/Acme/Incoming will be updated (renamed from "/Distribution/Acme/Inbound")');
    expect(start).toBeGreaterThan(0);
    expect(out.slice(start + 1, start + 3)).toEqual([
      '    ~ path: "/Distribution/Acme/Inbound" → "/Distribution/Acme/Incoming"',
      '    # (1 unchanged entry hidden)',
    ]);
  });

  it('shows a multi-line value as a unified diff', () => {
    const payroll = block('Task/Payroll to bank');
    const at = payroll.indexOf('    ~ Info.Notes:');
    expect(payroll.slice(at + 1, at + 6)).toEqual([
      '         Owner: finance-it@example.com',
      '        -Runs after the payroll close.',
      '        +Escalation: treasury on-call, +44 20 7946 0000',
      '        +Runs after the payroll close.',
      '        +Runbook: https://wiki.example.com/mft/payroll-to-bank',
    ]);
  });

  it('keeps hunk headers when a long text is shown in part', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n');
    const after = before.replace('line 15', 'line fifteen');
    const out = renderPlanText(
      planWith([
        { address: 'Task/Long', kind: 'Task', name: 'Long', service: 'automation', action: 'update', fields: [{ path: 'Info.Notes', before, after }] },
      ]),
      { color: false },
    );
    expect(out).toContain('        @@ -12,7 +12,7 @@\n         line 12\n');
    expect(out).toContain('        -line 15\n        +line fifteen\n');
    expect(out).not.toContain('line 1\n');
  });

  it('puts schedules in words under the schedule fields', () => {
    expect(block('Task/Payroll to bank')).toContain(
      '    # Schedules: Weekdays (Mon–Fri) at 02:00, with date list Bank Holidays 2026 → Weekdays (Mon–Fri) at 03:30, with date list Bank Holidays 2026',
    );
    expect(block('Task/Globex outbound')).toContain('    # Schedules: Mon, Wed and Fri at 20:00 → Weekdays (Mon–Fri) at 20:00');
    expect(block('Task/Globex inbound')).toContain('    # Schedules: Every day, repeatedly from 08:00 to 18:00, until the first success');
  });

  it('lists folder entries per principal and counts the unchanged ones', () => {
    expect(block('FolderPermissions/Distribution/Acme/Outbound').slice(1)).toEqual([
      '    ~ User "alice": readFiles, writeFiles, -deleteFiles, listFiles, +notify; share permissions: -readFiles',
      '    + User "acme-svc": readFiles, deleteFiles, listFiles',
      '    - User "bob": readFiles, listFiles',
      '    ! User "carol" is blocked: the entry of user carol cannot be changed on the server (not editable)',
      '    # (1 unchanged entry hidden)',
    ]);
  });

  it('says "No changes" when everything is in sync, and for an empty plan', () => {
    const inSync = renderPlanText(planWith(plan.changes.filter((c) => c.action === 'no-op')), { color: false });
    expect(inSync).toBe('mftops plan for environment "prod": 4 objects compared, 4 unchanged.\n\nNo changes. The servers match the manifests.\n');
    expect(renderPlanText(planWith([]), { color: false })).toContain('\nNo changes. The servers match the manifests.\n');
  });

  it('uses ANSI colours only when asked: green +, yellow ~, red -, magenta -/+ and !', () => {
    expect(text).not.toContain('\u001b');
    const coloured = renderPlanText(plan, { color: true });
    expect(coloured).toContain('\u001b[32m+\u001b[0m \u001b[1mTask/Globex inbound\u001b[0m');
    expect(coloured).toContain('\u001b[33m~\u001b[0m \u001b[1mTask/Payroll to bank\u001b[0m');
    expect(coloured).toContain('\u001b[31m-\u001b[0m \u001b[1mFolderPermissions/Distribution/Initech/Inbound\u001b[0m');
    expect(coloured).toContain('\u001b[35m-/+\u001b[0m \u001b[1mTask/Globex outbound\u001b[0m');
    expect(coloured).toContain('\u001b[35m!\u001b[0m \u001b[1mTask/Legacy EDI router\u001b[0m');
    // Without the escape codes it is the same text.
    expect(coloured.replace(/\u001b\[[0-9;]*m/g, '')).toBe(text);
  });

  it('shows control characters in names and values as escapes, so a name cannot forge lines or colours', () => {
    const name = 'Evil\n+ Task/Fake will be created\u001b[2J\u202e';
    const out = renderPlanText(
      planWith([
        {
          address: `Task/${name}`,
          kind: 'Task',
          name,
          service: 'automation',
          action: 'update',
          previousName: 'old\rname',
          fields: [{ path: 'Info.Description', before: 'a\u001b[31m', after: 'b' }],
        },
      ]),
      { color: false },
    );
    expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u202e]/);
    expect(out.split('\n')).not.toContain('+ Task/Fake will be created');
    expect(out).toContain('~ Task/Evil\\n+ Task/Fake will be created\\u001b[2J\\u202e will be updated (renamed from "old\\rname")');
    expect(out).toContain('~ Info.Description: "a\\u001b[31m" → "b"');
  });

  it('names the --target addresses the plan was limited to', () => {
    const out = renderPlanText(planWith(plan.changes, { targets: ['Task/Payroll to bank', 'Task/Globex inbound'] }), { color: false });
    expect(out.split('\n')[1]).toBe('Limited to --target "Task/Payroll to bank", "Task/Globex inbound".');
  });

  it('says when prune is off, and why', () => {
    const partial = renderPlanText(planWith(plan.changes, { pruneOff: { reason: 'partial-manifests', kinds: ['Task'] } }), { color: false });
    expect(partial.split('\n')[1]).toBe('Prune is off: only part of the manifests was given (pass --prune to prune anyway).');
    const disabled = renderPlanText(planWith([], { pruneOff: { reason: 'disabled', kinds: ['Task'] } }), { color: false });
    expect(disabled.split('\n').slice(1, 4)).toEqual(['Prune is off for this run (--no-prune).', '', 'No changes. The servers match the manifests.']);
    expect(text).not.toContain('Prune is off');
  });
});
