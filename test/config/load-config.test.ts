import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkServiceUrl, loadConfig, resolveService, selectEnvironment } from '../../src/config/load-config.js';
import { ConfigError } from '../../src/errors.js';
import { testdir } from '../helpers/testdir.js';

const GOOD = `apiVersion: mftops/v1
kind: Config
environments:
  prod:
    automation:
      url: https://automation.example.com/
      username: \${env:MFT_AUTOMATION_USER}
      password: \${env:MFT_AUTOMATION_PASSWORD}
      caFile: certs/corp-ca.pem
    transfer:
      url: https://transfer.example.com
      username: svc-mftops
      password: \${file:secrets/transfer.txt}
    manifests: [manifests/common, manifests/prod]
    scope: { taskGroups: [Finance, Partners], folders: [/Distribution] }
    prune: [FolderPermissions]
  test:
    transfer:
      url: http://127.0.0.1:8080
      username: admin
      password: \${env:T}
snapshots: { dir: .mftops/snapshots, keep: 30 }
`;

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('reads environments with paths made absolute from the file folder', () => {
    const dir = testdir({ 'mftops.yaml': GOOD });
    const config = loadConfig('mftops.yaml', dir);
    const prod = config.environments.get('prod')!;
    expect(prod.automation?.url).toBe('https://automation.example.com');
    expect(prod.automation?.caFile).toBe(join(dir, 'certs/corp-ca.pem'));
    expect(prod.automation?.username).toEqual({ kind: 'env', name: 'MFT_AUTOMATION_USER' });
    expect(prod.transfer?.username).toBe('svc-mftops');
    expect(prod.manifests).toEqual([join(dir, 'manifests/common'), join(dir, 'manifests/prod')]);
    expect(prod.scope).toEqual({ taskGroups: ['Finance', 'Partners'], folders: ['/Distribution'] });
    expect(prod.prune).toEqual(['FolderPermissions']);
    expect(config.snapshots).toEqual({ dir: join(dir, '.mftops/snapshots'), keep: 30 });
    expect(config.environments.get('test')?.automation).toBeUndefined();
  });

  it('says where the file is missing and how to point at it', () => {
    const dir = testdir({});
    expect(errorOf(() => loadConfig('mftops.yaml', dir))).toMatch(/configuration file mftops.yaml not found \(pass --config FILE/);
  });

  it('refuses a literal password with the line it is on', () => {
    const dir = testdir({ 'mftops.yaml': GOOD.replace('${env:T}', 'hunter2') });
    const msg = errorOf(() => loadConfig('mftops.yaml', dir));
    expect(msg).toContain('mftops.yaml:21:17: environments.test.transfer.password: must be a ${env:NAME} or ${file:PATH} reference');
    expect(msg).not.toContain('hunter2');
  });

  it('reports every problem at once, each with its position', () => {
    const dir = testdir({
      'mftops.yaml': `apiVersion: mftops/v2
kind: Config
environments:
  prod:
    transfer:
      url: https://t.example.com
      usename: admin
      password: \${env:P}
    prune: [Tasks]
  empty: {}
`,
    });
    const lines = errorOf(() => loadConfig('mftops.yaml', dir)).split('\n');
    expect(lines).toContain('mftops.yaml:1:13: apiVersion: must be mftops/v1');
    expect(lines).toContain('mftops.yaml:7:7: environments.prod.transfer: unknown key `usename`');
    expect(lines).toContain('mftops.yaml:5:5: environments.prod.transfer: missing required key `username`');
    expect(lines).toContain('mftops.yaml:9:13: environments.prod.prune.0: must be one of Task, ResourceGroupAcl, FolderPermissions');
    expect(lines).toContain('mftops.yaml:10:3: environments.empty: needs at least one of `automation`, `transfer`');
  });

  it('reports YAML syntax errors and duplicate keys with positions', () => {
    const dir = testdir({ 'a.yaml': 'apiVersion: mftops/v1\nkind: Config\nkind: Config\n', 'b.yaml': 'environments: [\n' });
    expect(errorOf(() => loadConfig('a.yaml', dir))).toMatch(/^a\.yaml:3:1: Map keys must be unique/);
    expect(errorOf(() => loadConfig('b.yaml', dir))).toMatch(/^b\.yaml:\d+:\d+: /);
  });

  it('refuses plain http to a non-loopback host', () => {
    const dir = testdir({ 'mftops.yaml': GOOD.replace('http://127.0.0.1:8080', 'http://mft.internal:8080') });
    expect(errorOf(() => loadConfig('mftops.yaml', dir))).toContain(
      'mftops.yaml:19:12: environments.test.transfer.url: plain http:// is refused for mft.internal',
    );
  });
});

describe('checkServiceUrl', () => {
  it('accepts https anywhere and http only on loopback', () => {
    expect(checkServiceUrl('https://mft.example.com')).toBeUndefined();
    expect(checkServiceUrl('http://127.0.0.1:1234')).toBeUndefined();
    expect(checkServiceUrl('http://localhost')).toBeUndefined();
    expect(checkServiceUrl('http://[::1]:80')).toBeUndefined();
    expect(checkServiceUrl('http://10.0.0.5')).toMatch(/plain http:\/\/ is refused/);
    expect(checkServiceUrl('ftp://x')).toMatch(/unsupported scheme ftp:/);
    expect(checkServiceUrl('https://u:p@x')).toMatch(/must not contain credentials/);
    expect(checkServiceUrl('not a url')).toMatch(/is not a URL/);
  });
});

describe('environments and credentials', () => {
  it('needs --env when there are several, and lists the known names', () => {
    const dir = testdir({ 'mftops.yaml': GOOD });
    const config = loadConfig('mftops.yaml', dir);
    expect(errorOf(() => selectEnvironment(config, undefined))).toMatch(/several environments \(prod, test\); choose one with --env NAME/);
    expect(errorOf(() => selectEnvironment(config, 'staging'))).toMatch(/environment "staging" is not in .* \(known: prod, test\)/);
    expect(selectEnvironment(config, 'test').name).toBe('test');
  });

  it('resolves env and file references only when asked, naming what is missing', () => {
    const dir = testdir({ 'mftops.yaml': GOOD, 'secrets/transfer.txt': 'xfer-pw\n' });
    const config = loadConfig('mftops.yaml', dir);
    const prod = selectEnvironment(config, 'prod');
    const transfer = resolveService(config, prod, 'transfer', {})!;
    expect(transfer.username).toBe('svc-mftops');
    expect(transfer.password.reveal()).toBe('xfer-pw');
    expect(errorOf(() => resolveService(config, prod, 'automation', {}))).toMatch(
      /environments\.prod\.automation\.username: environment variable MFT_AUTOMATION_USER is not set/,
    );
    const automation = resolveService(config, prod, 'automation', { MFT_AUTOMATION_USER: 'ops', MFT_AUTOMATION_PASSWORD: 'pw' })!;
    expect(automation.username).toBe('ops');
    expect(String(automation.password)).toBe('(sensitive)');
  });
});
