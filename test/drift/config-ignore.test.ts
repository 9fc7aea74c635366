import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { ConfigError } from '../../src/errors.js';
import { testdir } from '../helpers/testdir.js';

const HEAD = `apiVersion: mftops/v1
kind: Config
environments:
  prod:
    automation: { url: https://a.example.com, username: u, password: "\${env:P}" }
`;

function load(drift: string): ReturnType<typeof loadConfig> {
  const dir = testdir({ 'mftops.yaml': `${HEAD}${drift}` });
  return loadConfig('mftops.yaml', dir);
}

function errorOf(drift: string): string {
  try {
    load(drift);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('drift.ignore in mftops.yaml', () => {
  it('loads each rule with where it is written', () => {
    const config = load(`    drift:
      ignore:
        - address: Task/Nightly cleanup
          path: Schedules.*
          until: 2026-12-31
          reason: storage migration
        - { address: "FolderPermissions/Distribution/*" }
`);
    expect(config.environments.get('prod')!.drift).toEqual({
      ignore: [
        { address: 'Task/Nightly cleanup', path: 'Schedules.*', until: '2026-12-31', reason: 'storage migration', where: 'mftops.yaml:8:11' },
        { address: 'FolderPermissions/Distribution/*', where: 'mftops.yaml:12:11' },
      ],
    });
  });

  it('leaves environments without drift settings as they were', () => {
    expect(load('').environments.get('prod')!.drift).toBeUndefined();
  });

  it('reports a bad rule at its place, all problems at once', () => {
    const message = errorOf(`    drift:
      ignore:
        - address: Task/x
          until: 31.12.2026
        - path: Info.*
        - address: Task/y
          until: 2026-02-30
          colour: red
`);
    expect(message.split('\n')).toEqual([
      'mftops.yaml:9:18: environments.prod.drift.ignore.0.until: must be a date written YYYY-MM-DD',
      'mftops.yaml:10:11: environments.prod.drift.ignore.1: missing required key `address`',
      // The date check runs with the schema's: the whole file's problems at once.
      'mftops.yaml:12:18: environments.prod.drift.ignore.2.until: 2026-02-30 is not a date of the calendar',
      'mftops.yaml:13:11: environments.prod.drift.ignore.2: unknown key `colour`',
    ]);
    expect(
      errorOf(`    drift:
      ignore:
        - address: Task/y
          until: 2026-02-30
`),
    ).toBe('mftops.yaml:9:18: environments.prod.drift.ignore.0.until: 2026-02-30 is not a date of the calendar');
  });
});
