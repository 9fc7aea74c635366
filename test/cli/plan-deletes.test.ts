import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { PlanJsonView } from '../../src/render/plan-json.js';
import { automationClientFor, startSeededEmulator } from '../integration/helpers.js';
import { runCli } from '../helpers/run-cli.js';
import { ALL_SECRETS, APPLY_ENV, applyWorkdir } from '../apply/helpers.js';

/**
 * What a delete removes: a pruned task is shown in manifest form (steps, schedule, host names),
 * its secrets as `(sensitive)` in every output and in the plan file. The work folder prunes
 * tasks in group Operations; a task with a secret parameter and a step password is added there
 * before planning.
 */

const PARAM_SECRET = 'retired-feed-PARAMSECRET-4471';
const STEP_PASSWORD = 'retired-feed-STEPSECRET-8820';
const SEEDED = [PARAM_SECRET, STEP_PASSWORD, ...ALL_SECRETS];

let emulator: RunningEmulator;
beforeEach(async () => {
  emulator = await startSeededEmulator();
  await automationClientFor(emulator).createTask({
    Name: 'Retired partner feed',
    Group: ['Operations'],
    Active: 0,
    Parameters: { ApiKey: { value: PARAM_SECRET, Secret: 1 }, Region: { value: 'eu-west' } },
    Schedules: { Schedule: [{ Days: { DayOfWeek: ['Monday', 'Friday'] }, Frequency: { Interval: [{ StartTime: '06:45', EndTime: '06:45' }] } }] },
    steps: [{ Source: { HostID: '201004', Path: '/outgoing/retired', FileMask: '*.csv', Username: 'feed-user', Password: STEP_PASSWORD } }],
  } as never);
});
afterEach(() => emulator.close());

/** The lines under a change's header line, up to the next blank line. */
function block(text: string, header: string): string[] {
  const lines = text.split('\n');
  const start = lines.indexOf(header);
  expect(start, `${header} in\n${text}`).toBeGreaterThanOrEqual(0);
  const end = lines.indexOf('', start);
  return lines.slice(start + 1, end);
}

describe('plan: what a delete removes', () => {
  it('shows a pruned task in manifest form (steps, schedule, names), its secrets (sensitive), in text, markdown, JSON and the plan file', async () => {
    const dir = applyWorkdir(emulator);
    const text = await runCli(['plan', '--out', 'tfplan'], { cwd: dir, env: APPLY_ENV });
    expect(text.code).toBe(0);
    expect(block(text.stdout, '- Task/Retired partner feed will be deleted')).toEqual([
      '    # no manifest manages this task in scope (Operations), and Tasks are pruned',
      '    - Active: 0',
      '    - Group:',
      '    -   - Operations',
      '    - Parameters:',
      '    -   ApiKey:',
      '    -     value: (sensitive)',
      '    -     secret: true',
      '    -   Region: eu-west',
      '    - Schedules:',
      '    -   Schedule:',
      '    -     - Days:',
      '    -         DayOfWeek:',
      '    -           - Monday',
      '    -           - Friday',
      '    -       Frequency:',
      '    -         Interval:',
      '    -           - StartTime: "06:45"',
      '    -             EndTime: "06:45"',
      '    - steps:',
      '    -   - Source:',
      '    -       Host: acme-sftp',
      '    -       Path: /outgoing/retired',
      '    -       FileMask: "*.csv"',
      '    -       Username: feed-user',
      '    -       Password: (sensitive)',
    ]);
    // A replace shows its field differences, then the whole task its delete removes.
    const replace = block(text.stdout, '-/+ Task/Acme inbound must be replaced');
    expect(replace.slice(0, 4)).toEqual([
      '    # `Group` cannot change after creation: the task is deleted and created again',
      '    ~ Group: ["Partners"] → ["Finance"] # forces replacement',
      '    # deleted first, as it is now:',
      '    - Active: 1',
    ]);
    expect(replace).toContain('    -       Host: acme-sftp');
    // An ACL shows its pair and permissions; a folder its entries, as before.
    expect(block(text.stdout, '- ResourceGroupAcl/Operations/Auditors will be deleted').slice(1)).toEqual([
      '    - resourceGroup: Operations',
      '    - userGroup: Auditors',
      '    - permissions: []',
    ]);

    const markdown = await runCli(['--format', 'markdown', 'plan'], { cwd: dir, env: APPLY_ENV });
    expect(markdown.code).toBe(0);
    expect(markdown.stdout).toContain(
      '**Removes:**\n\n```diff\n- Active: 0\n- Group:\n-   - Operations\n- Parameters:\n-   ApiKey:\n-     value: (sensitive)\n',
    );
    expect(markdown.stdout).toContain('-       Password: (sensitive)\n');

    const json = await runCli(['--format', 'json', 'plan'], { cwd: dir, env: APPLY_ENV });
    expect(json.code).toBe(0);
    const view = JSON.parse(json.stdout) as PlanJsonView;
    const feed = view.changes.find((c) => c.address === 'Task/Retired partner feed');
    expect(feed?.removes).toMatchObject({
      Active: 0,
      Parameters: { ApiKey: { value: { $sensitive: true }, secret: true }, Region: 'eu-west' },
      steps: [{ Source: { Host: 'acme-sftp', Path: '/outgoing/retired', Username: 'feed-user', Password: { $sensitive: true } } }],
    });
    // Deletes say what they remove, and so does a replace (it deletes the live task first); nothing else does.
    expect(view.changes.filter((c) => c.removes !== undefined).map((c) => c.address)).toEqual([
      'Task/Acme inbound',
      'Task/Nightly cleanup',
      'Task/Retired partner feed',
      'ResourceGroupAcl/Operations/Auditors',
    ]);

    const file = readFileSync(join(dir, 'tfplan'), 'utf8');
    expect(file).toContain('"removes"');
    // The saved plan shows the same (the content travels in the file, it is not re-read).
    const shown = await runCli(['show', 'tfplan'], { cwd: dir });
    expect(block(shown.stdout, '- Task/Retired partner feed will be deleted')).toEqual(block(text.stdout, '- Task/Retired partner feed will be deleted'));

    for (const secret of SEEDED) {
      for (const [what, out] of [
        ['text stdout', text.stdout],
        ['text stderr', text.stderr],
        ['markdown', markdown.stdout + markdown.stderr],
        ['json', json.stdout + json.stderr],
        ['plan file', file],
        ['show', shown.stdout + shown.stderr],
      ] as const) {
        expect(out, `${secret} in ${what}`).not.toContain(secret);
      }
    }
  });
});
