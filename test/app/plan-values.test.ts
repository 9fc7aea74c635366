import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { Plan } from '../../src/plan/model.js';
import { parsePlan, serializePlan } from '../../src/app/plan-file.js';
import { renderPlanText } from '../../src/render/plan-text.js';
import { EXAMPLE_MANIFESTS, planPaths, startHarness } from '../plan/helpers.js';
import type { Harness } from '../plan/helpers.js';
import { editTaskByHand } from '../helpers/emulator-test-api.js';

/**
 * The example estate, moved on the server so that the plan must show what it cannot name: steps
 * on a host and a script, and a schedule on a date list, that no list names (deleted since, or
 * hidden from the account), and a removed step with a password of its own.
 */
function moveEstate(emulator: RunningEmulator): void {
  editTaskByHand(emulator, { name: 'Acme outbound' }, (task: Record<string, any>) => {
    task.steps[1].Destination.HostID = '209999';
    task.steps.push({ Destination: { HostID: '201004', Path: '/copy', Username: 'acme-copy', Password: 'Pa55-step-secret' } });
  });
  editTaskByHand(emulator, { name: 'Acme inbound' }, (task: Record<string, any>) => {
    task.steps[1].Process.ScriptID = '309999';
  });
  editTaskByHand(emulator, { name: 'Payroll to bank' }, (task: Record<string, any>) => {
    task.Schedules.Schedule[0].DateListRef = [{ DateListID: '303999' }];
  });
}

const DISPLAY_STRINGS = /\((host|script|date list) ID |\(sensitive\)/;

let h: Harness;
let plan: Plan;
beforeEach(async () => {
  h = await startHarness();
  moveEstate(h.emulator);
  plan = (await planPaths(h, [EXAMPLE_MANIFESTS])).plan!;
});
afterEach(() => h.close());

describe('a plan file holds values, never display strings', () => {
  it('marks what it cannot name with structured markers, and no (host ID …), (script ID …), (date list ID …) or (sensitive) string', () => {
    const file = serializePlan(plan);
    expect(file).not.toMatch(DISPLAY_STRINGS);
    expect(file).not.toContain('Pa55-step-secret');
    for (const marker of ['"$ref": "host"', '"$ref": "script"', '"$ref": "dateList"', '"$sensitive": true']) expect(file).toContain(marker);
    // The schema knows the markers: the file reads back as the same plan.
    expect(parsePlan(file, 'plan.json')).toEqual(plan);
  });

  it('still renders them as before', () => {
    const text = renderPlanText(plan, { color: false });
    expect(text).toContain('~ steps[1].Destination.Host: "(host ID 209999)" → "acme-sftp"');
    expect(text).toContain('~ steps[1].Process.Script: "(script ID 309999)" → "PGP Decrypt"');
    expect(text).toContain('~ Schedules.Schedule[0].DateListRef: ["(date list ID 303999)"] → ["Bank Holidays 2026"]');
    expect(text).toMatch(/- steps\[2\]: \{.*"Password": "\(sensitive\)".*\}/);
  });
});
