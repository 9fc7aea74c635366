import { describe, expect, it } from 'vitest';
import type { Change, FieldChange } from '../../../src/plan/model.js';
import { fingerprintTask, inWeekOrder } from '../../../src/kinds/task/plan.js';
import { readTask } from '../../../src/services/automation/normalize.js';
import type { Task } from '../../../src/services/automation/types.js';
import { automationState, manifestsFrom, planFrom, taskYaml } from '../../resources/fixtures.js';

/** A live task as GET /tasks answers it (current profile), matching SPEC below. */
function liveTask(): Task {
  return {
    ID: '401',
    Name: 'Payroll to bank',
    Group: ['Finance'],
    Active: 1,
    AR: 0,
    CacheNames: 'random',
    TT: '',
    UseDefStateCaching: 0,
    NextEID: 6,
    Renamed: false,
    Info: { Description: 'Nightly payroll', Notes: 'Owner: finance' },
    Schedules: {
      Schedule: [
        {
          ID: '1',
          Days: { DayOfWeek: ['Monday', 'Tuesday'] },
          Frequency: { Interval: [{ StartTime: '02:00', EndTime: '02:00' }] },
          DateListRef: [{ DateListID: '31' }],
        },
      ],
    },
    Parameters: { Recipient: { value: 'bank@example.com', DisplayValue: 'bank@example.com' }, ApiKey: { value: '', DisplayValue: '(suppressed)' } },
    NextActions: {},
    steps: [
      { Source: { ID: '2', HostID: '11', Type: 'SSHFTP', Path: '/out', FileMask: '*.csv', DeleteOrig: 0, RetryCount: 3 } },
      { Process: { ID: '3', ScriptID: '21', Run: 'per-file', Parameters: {} } },
      { Destination: { ID: '4', HostID: '13', Type: 'siLock', Path: '/in', OverwriteOrig: 1 } },
    ],
    xAddEditDelete: true,
    xAlter: true,
    xRun: true,
    Scheduled: true,
    Watched: false,
  };
}

const SPEC = `  Active: true
  Group: [Finance]
  Info: { Description: Nightly payroll }
  Parameters:
    Recipient: bank@example.com
    ApiKey: \${env:PAYROLL_API_KEY}
  Schedules:
    Schedule:
      - Days: { DayOfWeek: [Tuesday, Monday] }
        DateListRef: [Bank Holidays]
        Frequency: { Interval: [{ StartTime: "02:00", EndTime: "02:00" }] }
  steps:
    - Source: { Host: payroll-sftp, Path: /out, FileMask: "*.csv", DeleteOrig: 0, RetryCount: 3 }
    - Process: { Script: PGP Encrypt, Run: per-file }
    - Destination: { Host: xfer, Type: xferLock, Path: /in, OverwriteOrig: 1 }
`;

function plan(spec: string, live: Task | undefined, options: { name?: string; metadata?: string } = {}): Change {
  const manifests = manifestsFrom(taskYaml(options.name ?? 'Payroll to bank', spec, options.metadata));
  const { plan, diagnostics } = planFrom(manifests, { automation: automationState({ tasks: live ? [live] : [] }) });
  expect(diagnostics).toEqual([]);
  const change = plan.changes.find((c) => c.kind === 'Task');
  if (!change) throw new Error('no task change');
  return change;
}

const paths = (fields: readonly FieldChange[]) => fields.map((f) => f.path);

describe('Task: no perpetual diff', () => {
  it('plans a no-op for a manifest that says what the server has (a secret parameter included)', () => {
    const c = plan(SPEC, liveTask());
    expect(c.action).toBe('no-op');
    expect(c.fields).toEqual([]);
    expect(c.payload).toBeUndefined();
    expect(c.liveId).toBe('401');
  });

  // Each row: a way a server may answer the same task, read through the client's normaliser as
  // every live task is; none of them is a change.
  const variants: [string, (t: Record<string, any>) => void][] = [
    ['day names in three letters, in any case', (t) => (t.Schedules.Schedule[0].Days.DayOfWeek = ['MON', 'Tue'])],
    ['DateListRef as {ID} or a bare id', (t) => (t.Schedules.Schedule[0].DateListRef = [{ ID: 31 }])],
    ['Group as a single string', (t) => (t.Group = 'Finance')],
    [
      'step keys of the Steps Type model (MicSourceType…)',
      (t) => (t.steps = t.steps.map((s: Record<string, unknown>) => ({ [`Mic${Object.keys(s)[0]}Type`]: Object.values(s)[0] }))),
    ],
    ['0/1 flags answered as booleans', (t) => ((t.Active = true), (t.steps[2].Destination.OverwriteOrig = true))],
    ['numbers answered as strings ("3" for 3)', (t) => (t.steps[0].Source.RetryCount = '3')],
    ['ids answered as numbers', (t) => ((t.steps[0].Source.HostID = 11), (t.steps[1].Process.ScriptID = 21))],
    ['DayOfWeek in another order', (t) => (t.Schedules.Schedule[0].Days.DayOfWeek = ['Tuesday', 'Monday'])],
    ['times with seconds or without a leading zero', (t) => (t.Schedules.Schedule[0].Frequency.Interval[0] = { StartTime: '2:00', EndTime: '02:00:00' })],
    ['resource group names in another case', (t) => (t.Group = ['FINANCE'])],
    [
      'parameters in the {Parameter: [...]} wire shape',
      (t) =>
        (t.Parameters = {
          Parameter: [
            { Name: 'Recipient', value: 'bank@example.com' },
            { Name: 'ApiKey', value: '', DisplayValue: '(suppressed)' },
          ],
        }),
    ],
    ['the transfer host type spelt xferLock where the manifest says siLock', (t) => (t.steps[2].Destination.Type = 'xferLock')],
    [
      'fields the manifest does not set',
      (t) => ((t.Info.Notes = 'changed in the UI'), (t.AR = 1), (t.steps[0].Source.RescanSecs = 30), (t.Parameters.Extra = { value: 'x' })),
    ],
    [
      'server-numbered and read-only fields',
      (t) => ((t.NextEID = 99), (t.Renamed = true), (t.xRun = false), (t.Scheduled = false), (t.Watched = true), (t.steps[0].Source.ID = '77')),
    ],
  ];
  it.each(variants)('treats %s as no change', (_name, mutate) => {
    const live = liveTask() as Record<string, any>;
    mutate(live);
    expect(plan(SPEC, readTask(live, {})).action).toBe('no-op');
  });

  it('takes day names written Mon…Sun in a manifest as the full names, whatever form the server answers in', () => {
    const short = SPEC.replace('DayOfWeek: [Tuesday, Monday]', 'DayOfWeek: [Tue, Mon, Monday]');
    expect(plan(short, liveTask()).action).toBe('no-op');
    const live = liveTask() as Record<string, any>;
    live.Schedules.Schedule[0].Days.DayOfWeek = ['Mon', 'Tue'];
    expect(plan(short, readTask(live, {})).action).toBe('no-op');
    const c = plan(short.replace('[Tue, Mon, Monday]', '[Mon, Wed]'), readTask(live, {}));
    expect(c.fields.find((f) => f.path.endsWith('DayOfWeek'))).toEqual({
      path: 'Schedules.Schedule[0].Days.DayOfWeek',
      before: ['Monday', 'Tuesday'],
      after: ['Monday', 'Wednesday'],
    });
  });

  it('matches a host name written in another case (the server folds case)', () => {
    expect(plan(SPEC.replace('Host: payroll-sftp', 'Host: PAYROLL-SFTP'), liveTask()).action).toBe('no-op');
  });

  it('matches the task name without regard to case, and does not rename for case alone', () => {
    expect(plan(SPEC, liveTask(), { name: 'PAYROLL TO BANK' }).action).toBe('no-op');
    const c = plan(SPEC.replace('Active: true', 'Active: false'), liveTask(), { name: 'PAYROLL TO BANK' });
    expect((c.payload as { body: Record<string, unknown> }).body.Name).toBe('Payroll to bank');
  });
});

describe('Task: differences', () => {
  it('shows a changed reference by name, not by id', () => {
    const live = liveTask() as Record<string, any>;
    live.steps[0].Source.HostID = '14';
    const c = plan(SPEC, live as Task);
    expect(c.action).toBe('update');
    expect(c.fields.filter((f) => !f.sensitive)).toEqual([{ path: 'steps[0].Source.Host', before: 'finance-share', after: 'payroll-sftp' }]);
  });

  it('keeps flags as the data 0/1 and says them as true/false (words from the task schema)', () => {
    const live = liveTask() as Record<string, any>;
    live.Active = false;
    const c = plan(SPEC, live as Task);
    expect(c.fields.find((f) => f.path === 'Active')).toEqual({ path: 'Active', before: 0, after: 1, words: { form: 'flag', before: 'false', after: 'true' } });
  });

  it('compares steps by position and kind: another kind is a replaced step, extra live steps are removed', () => {
    const live = liveTask() as Record<string, any>;
    live.steps = [live.steps[0], live.steps[2], live.steps[1], { Destination: { ID: '9', HostID: '14', Type: 'Share', Path: '/x' } }];
    const c = plan(SPEC, live as Task);
    expect(c.action).toBe('update');
    const real = c.fields.filter((f) => !f.sensitive);
    expect(paths(real)).toEqual(['steps[1]', 'steps[2]', 'steps[3]']);
    expect(real[0]).toEqual({
      path: 'steps[1]',
      before: { Destination: { Host: 'xfer', Type: 'siLock', Path: '/in', OverwriteOrig: 1 } },
      after: { Process: { Script: 'PGP Encrypt', Run: 'per-file' } },
      innerWords: { before: [{ path: 'Destination.OverwriteOrig', form: 'flag', text: 'true' }] },
    });
    expect(real[2]).toEqual({ path: 'steps[3]', before: { Destination: { Host: 'finance-share', Type: 'Share', Path: '/x' } } });
    // The kept first step keeps its server ID; the steps of a new kind are sent without one.
    const steps = (c.payload as { body: Record<string, any> }).body.steps;
    expect(steps).toHaveLength(3);
    expect(steps[0].Source.ID).toBe('2');
    expect(steps[1]).toEqual({ Process: { ScriptID: '21', Run: 'per-file' } });
  });

  it('compares schedules by position and removes extra live schedules', () => {
    const live = liveTask() as Record<string, any>;
    live.Schedules.Schedule.push({ ID: '5', Frequency: { Interval: [{ StartTime: '12:00', EndTime: '12:00' }] } });
    live.Schedules.Schedule[0].Frequency.Interval[0].StartTime = '03:00';
    const c = plan(SPEC, live as Task);
    expect(c.fields.filter((f) => !f.sensitive)).toEqual([
      { path: 'Schedules.Schedule[0].Frequency.Interval[0].StartTime', before: '03:00', after: '02:00' },
      { path: 'Schedules.Schedule[1]', before: { Frequency: { Interval: [{ StartTime: '12:00', EndTime: '12:00' }] } } },
    ]);
  });

  it('shows DayOfWeek in week order on both sides', () => {
    const live = liveTask() as Record<string, any>;
    live.Schedules.Schedule[0].Days.DayOfWeek = ['Sunday', 'Monday'];
    const c = plan(SPEC, live as Task);
    expect(c.fields.find((f) => f.path.endsWith('DayOfWeek'))).toEqual({
      path: 'Schedules.Schedule[0].Days.DayOfWeek',
      before: ['Monday', 'Sunday'],
      after: ['Monday', 'Tuesday'],
    });
  });

  it('keeps secrets out of the plan: a sensitive change without values, the reference in the payload', () => {
    const live = liveTask() as Record<string, any>;
    live.Info.Description = 'old text';
    live.steps[2].Destination.Password = 'live-SEEDSECRET';
    const spec = SPEC.replace('Path: /in, OverwriteOrig: 1', 'Path: /in, OverwriteOrig: 1, Password: "${env:XFER_PASSWORD}"');
    const c = plan(spec, live as Task);
    expect(c.action).toBe('update');
    expect(c.fields).toContainEqual({ path: 'Parameters.ApiKey', sensitive: true });
    expect(c.fields).toContainEqual({ path: 'steps[2].Destination.Password', sensitive: true });
    const body = (c.payload as { body: Record<string, any> }).body;
    expect(body.Parameters.ApiKey).toEqual({ value: '${env:PAYROLL_API_KEY}', DisplayValue: '(suppressed)' });
    expect(body.steps[2].Destination.Password).toBe('${env:XFER_PASSWORD}');
    expect(JSON.stringify(c)).not.toContain('SEEDSECRET');
  });

  it('never plans a change for a secret alone', () => {
    const spec = SPEC.replace('ApiKey: ${env:PAYROLL_API_KEY}', 'ApiKey: ${env:OTHER_KEY}');
    expect(plan(spec, liveTask()).action).toBe('no-op');
  });

  it('sends the live task with the manifest merged in on update', () => {
    const live = liveTask() as Record<string, any>;
    live.Info.Description = 'old text';
    const c = plan(SPEC, live as Task);
    const body = (c.payload as { body: Record<string, any> }).body;
    expect(body.Info).toEqual({ Description: 'Nightly payroll', Notes: 'Owner: finance' });
    expect(body.ID).toBe('401');
    expect(body.NextEID).toBe(6);
    expect(body.AR).toBe(0);
    for (const readOnly of ['Renamed', 'xAddEditDelete', 'xAlter', 'xRun', 'Scheduled', 'Watched']) expect(body).not.toHaveProperty(readOnly);
    expect(body.Schedules.Schedule[0].ID).toBe('1');
    expect(body.Schedules.Schedule[0].DateListRef).toEqual([{ DateListID: '31' }]);
    expect(body.steps[2].Destination).toEqual({ ID: '4', HostID: '13', Type: 'siLock', Path: '/in', OverwriteOrig: 1 });
    expect(body.Parameters.Recipient).toEqual({ value: 'bank@example.com' });
  });

  it('replaces a task whose Group changes, marking the field', () => {
    const c = plan(SPEC.replace('Group: [Finance]', 'Group: [Partners]'), liveTask());
    expect(c.action).toBe('replace');
    expect(c.reason).toEqual({ code: 'task-group-immutable', lostSecrets: [] });
    expect(c.fields.find((f) => f.path === 'Group')).toEqual({ path: 'Group', before: ['Finance'], after: ['Partners'], forcesReplace: true });
    const body = (c.payload as { body: Record<string, any> }).body;
    expect(body.Group).toEqual(['Partners']);
    expect(body).not.toHaveProperty('ID');
    expect(body.steps[0].Source).not.toHaveProperty('ID');
    expect(body.Parameters.ApiKey.value).toBe('${env:PAYROLL_API_KEY}');
  });

  it('names the secret parameters a replace cannot copy (suppressed on the server, not in the manifest)', () => {
    const spec = SPEC.replace('Group: [Finance]', 'Group: [Partners]').replace('    ApiKey: ${env:PAYROLL_API_KEY}\n', '');
    const c = plan(spec, liveTask());
    expect(c.action).toBe('replace');
    expect(c.reason).toEqual({ code: 'task-group-immutable', lostSecrets: ['Parameters.ApiKey'] });
    expect((c.payload as { body: Record<string, any> }).body.Parameters).not.toHaveProperty('ApiKey');
  });

  it("names a step password a replace cannot copy, shown suppressed or (on a server that hides them) implied by the step's own user", () => {
    const spec = SPEC.replace('Group: [Finance]', 'Group: [Partners]');
    const suppressed = liveTask() as Record<string, any>;
    suppressed.steps[0].Source.Password = '(suppressed)';
    const c = plan(spec, suppressed as Task);
    expect(c.action).toBe('replace');
    expect(c.reason).toEqual({ code: 'task-group-immutable', lostSecrets: ['steps[0].Source.Password'] });
    expect((c.payload as { body: Record<string, any> }).body.steps[0].Source).not.toHaveProperty('Password');
    const hidden = liveTask() as Record<string, any>;
    hidden.steps[0].Source.Username = 'payroll';
    expect(plan(spec, hidden as Task).reason).toEqual({ code: 'task-group-immutable', lostSecrets: ['steps[0].Source.Password'] });
    // Carried by the manifest: nothing is lost, nothing is said.
    const carried = spec.replace('FileMask: "*.csv"', 'FileMask: "*.csv", Password: "${env:PAYROLL_SFTP}"');
    expect(plan(carried, suppressed as Task).reason).toEqual({ code: 'task-group-immutable', lostSecrets: [] });
    // A step that signs in with the host's default user or a key holds no password of its own.
    hidden.steps[0].Source.UseDefUser = 1;
    expect(plan(spec, hidden as Task).reason).toEqual({ code: 'task-group-immutable', lostSecrets: [] });
  });

  it('blocks a difference on an advanced (TT=COS) task and sends nothing', () => {
    const live = { ...liveTask(), TT: 'COS', Info: { Description: 'old' } };
    const c = plan(SPEC, live);
    expect(c.action).toBe('blocked');
    expect(c.reason).toEqual({ code: 'advanced-task', operation: 'update' });
    expect(c.fields.some((f) => f.path === 'Info.Description')).toBe(true);
    expect(c.payload).toBeUndefined();
    expect(plan(SPEC, { ...liveTask(), TT: 'COS' }).action).toBe('no-op');
  });

  it('creates a missing task from the manifest with ids resolved', () => {
    const c = plan(SPEC, undefined);
    expect(c.action).toBe('create');
    expect(c.liveId).toBeUndefined();
    expect(c.fingerprint).toBeUndefined();
    const body = (c.payload as { body: Record<string, any> }).body;
    expect(body.Name).toBe('Payroll to bank');
    expect(body.steps[0].Source).toEqual({ HostID: '11', Type: 'SSHFTP', Path: '/out', FileMask: '*.csv', DeleteOrig: 0, RetryCount: 3 });
    expect(body.steps[2].Destination.Type).toBe('siLock');
    expect(body.Schedules.Schedule[0].DateListRef).toEqual([{ DateListID: '31' }]);
    expect(c.fields).toContainEqual({ path: 'Parameters.ApiKey', sensitive: true });
  });
});

describe('Task fingerprint and normalisers', () => {
  it('ignores volatile fields and key order, but not content', () => {
    const a = liveTask();
    const b = { ...liveTask(), Scheduled: false, Watched: true, xRun: false, Renamed: true };
    const reordered = Object.fromEntries(Object.entries(liveTask()).reverse()) as Task;
    expect(fingerprintTask(b)).toBe(fingerprintTask(a));
    expect(fingerprintTask(reordered)).toBe(fingerprintTask(a));
    expect(fingerprintTask({ ...a, Active: 0 })).not.toBe(fingerprintTask(a));
    expect(fingerprintTask(a)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('does not let a password move or leak into the fingerprint', () => {
    const a = liveTask() as Record<string, any>;
    const b = liveTask() as Record<string, any>;
    b.steps[0].Source.Password = 'x-SEEDSECRET';
    expect(fingerprintTask(b as Task)).toBe(fingerprintTask(a as Task));
  });

  it('orders days Monday to Sunday', () => {
    expect(inWeekOrder(['Sunday', 'Friday', 'monday'])).toEqual(['monday', 'Friday', 'Sunday']);
  });
});

describe('Task: field values are data, with markers only where the plan means them', () => {
  it('marks a password of a removed step and an unnamed host, and wraps live data that looks like a marker', () => {
    const live = liveTask() as Task & { steps: Record<string, unknown>[] };
    live.steps[2] = { Destination: { ID: '4', HostID: '99', Type: 'siLock', Path: '/in', OverwriteOrig: 1 } };
    live.steps.push({ Destination: { ID: '5', HostID: '13', Path: '/copy', Username: 'copy', Password: '(suppressed)' } });
    live.steps.push({ Custom: { $sensitive: true } }, { Custom: { $ref: 'host', id: '13' } });
    const c = plan(SPEC, live);
    const field = (path: string) => c.fields.find((f) => f.path === path);
    expect(field('steps[2].Destination.Host')).toEqual({ path: 'steps[2].Destination.Host', before: { $ref: 'host', id: '99' }, after: 'xfer' });
    expect(field('steps[3]')?.before).toEqual({ Destination: { Host: 'xfer', Path: '/copy', Username: 'copy', Password: { $sensitive: true } } });
    // A server's own object with a `$` key stays data: wrapped, never read as a marker.
    expect(field('steps[4]')?.before).toEqual({ Custom: { $data: { $sensitive: true } } });
    expect(field('steps[5]')?.before).toEqual({ Custom: { $data: { $ref: 'host', id: '13' } } });
  });
});
