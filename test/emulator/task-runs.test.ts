import { afterEach, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { advanceClock } from '../helpers/emulator-test-api.js';
import { ADMIN, automationBase, exampleSeed, login, withEmulator } from './helpers.js';

let emu: RunningEmulator | undefined;
afterEach(() => emu?.close());

it('rule 121: with runSeconds a run started through the API completes after that long on the emulator clock', async () => {
  emu = await withEmulator({ runSeconds: 120 });
  const api = await login(automationBase(emu), ADMIN);
  const start = await api.call('POST', '/tasks/401003/start');
  const running = await api.get('/tasks/running');
  expect(running.body.items).toEqual([
    { TaskID: '401003', TaskName: 'Acme outbound', NominalStart: start.body.nominalStart, TimeStarted: expect.any(String), Status: 'Running', Scheduled: 0 },
  ]);
  advanceClock(emu, 119_000);
  expect((await api.get('/tasks/running')).body.items).toHaveLength(1);
  advanceClock(emu, 1_000);
  expect((await api.get('/tasks/running')).body.items).toEqual([]);
  // A completed run cannot be stopped.
  expect((await api.call('POST', '/tasks/401003/stop', { nominalStart: start.body.nominalStart })).status).toBe(404);
});

it('rule 121: a seed starts runs (by task name, as the scheduler, for seconds); an unknown task name is refused', async () => {
  const seed = exampleSeed();
  seed.automation!.runningTasks = [{ task: 'acme outbound', scheduled: true, seconds: 60 }, { task: 'Payroll to bank' }];
  emu = await withEmulator({ seed });
  const api = await login(automationBase(emu), ADMIN);
  const names = async () => ((await api.get('/tasks/running')).body.items as { TaskName: string; Scheduled: number }[]).map((r) => [r.TaskName, r.Scheduled]);
  expect(await names()).toEqual([
    ['Acme outbound', 1],
    ['Payroll to bank', 0],
  ]);
  advanceClock(emu, 60_000);
  expect(await names()).toEqual([['Payroll to bank', 0]]);
  seed.automation!.runningTasks = [{ task: 'No such task' }];
  await expect(withEmulator({ seed })).rejects.toThrow('automation.runningTasks[0]: no seeded task is named "No such task"');
});

it('rule 122: automation.running=camel answers camelCase items with a boolean scheduled', async () => {
  emu = await withEmulator({ variants: { 'automation.running': 'camel' } });
  const api = await login(automationBase(emu), ADMIN);
  await api.call('POST', '/tasks/401003/start');
  expect((await api.get('/tasks/running')).body.items).toEqual([
    { taskId: '401003', taskName: 'Acme outbound', nominalStart: expect.any(String), timeStarted: expect.any(String), status: 'Running', scheduled: false },
  ]);
});
