import { expect, it } from 'vitest';
import { holdsSent } from '../../../src/kinds/task/io-match.js';
import { readTask } from '../../../src/services/automation/normalize.js';

it('compares only what was sent, the way the server means it', () => {
  const read = {
    ID: '9',
    Name: 'T',
    Active: true,
    NextEID: 4,
    Renamed: false,
    Info: { Description: 'd', Notes: '' },
    steps: [{ Source: { ID: '1', HostID: 12, Path: '/x', Type: 'SSHFTP' } }],
  };
  expect(holdsSent({ Name: 'T', Active: 1, Info: { Description: 'd' }, steps: [{ Source: { HostID: '12', Path: '/x' } }] }, read)).toBe(true);
  expect(holdsSent({ Info: { Description: 'other' } }, read)).toBe(false);
  expect(holdsSent({ steps: [{ Source: { HostID: '12' } }, { Process: {} }] }, read)).toBe(false);
  expect(holdsSent({ Missing: 'x' }, read)).toBe(false);
});

it('does not compare what cannot be read back: ids, passwords, secret parameters, references', () => {
  const read = {
    ID: '1',
    Parameters: { Key: { value: '', DisplayValue: '(suppressed)' }, Plain: { value: 'v', DisplayValue: 'v' } },
    steps: [{ Destination: { Password: '(suppressed)' } }],
  };
  const sent = {
    ID: '',
    NextEID: 1,
    Parameters: { Key: { value: 'real-secret', DisplayValue: '(suppressed)' }, Plain: { value: 'v' } },
    steps: [{ Destination: { Password: 'real' } }],
    Other: '${env:X}',
  };
  expect(holdsSent(sent, read)).toBe(true);
  expect(holdsSent({ Parameters: { Plain: { value: 'w' } } }, read)).toBe(false);
  expect(holdsSent({ Parameters: { Absent: { value: 'w' } } }, read)).toBe(false);
  // The legacy list form of parameters reads the same once the client has read it (as every answer is).
  expect(holdsSent({ Parameters: { Plain: { value: 'v' } } }, readTask({ Parameters: { Parameter: [{ Name: 'Plain', value: 'v' }] } }, {}))).toBe(true);
});

it('scalar lists may come back in another order; empty and absent are alike', () => {
  expect(holdsSent({ Days: ['Monday', 'Friday'] }, { Days: ['Friday', 'Monday'] })).toBe(true);
  expect(holdsSent({ Days: ['Monday'] }, { Days: ['Friday'] })).toBe(false);
  expect(holdsSent({ Group: [] }, {})).toBe(true);
  expect(holdsSent({ Note: '' }, {})).toBe(true);
});
