import { describe, expect, it } from 'vitest';
import { checkApplyWindow } from '../../src/app/server-calendar.js';
import type { EnvironmentSettings } from '../../src/config/model.js';
import type { AutomationReader } from '../../src/live/read-live-state.js';

/** An automation server whose `/info` gives no usable time zone. */
const noZone = { info: async () => ({ version: '8.5' }), listDateLists: async () => [] } as unknown as AutomationReader;
const env = {
  name: 'lab',
  changeWindows: { allow: [{ days: [], from: 0, to: 1440, where: 'mftops.yaml:5:9' }], freeze: [] },
} as unknown as EnvironmentSettings;

describe('checkApplyWindow', () => {
  it('refuses when the server gives no usable zone and change windows are set, unless --override-window', async () => {
    const checked = await checkApplyWindow(env, noZone, new Date('2026-12-02T10:00:00Z'), undefined);
    expect(checked?.refusal).toMatch(
      /the change windows cannot be judged: the server did not give a usable time zone .*; to apply now anyway: --override-window "reason"$/,
    );
    const overridden = await checkApplyWindow(env, noZone, new Date('2026-12-02T10:00:00Z'), 'INC-1');
    expect(overridden?.refusal).toBeUndefined();
    expect(overridden?.report).toMatchObject({ state: 'closed', overrideReason: 'INC-1' });
  });
});
