import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkServiceUrl, loadConfig, resolveEnvironmentServices, resolveService, selectEnvironment } from '../../src/config/load-config.js';
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

function configErrorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

const errorOf = (fn: () => unknown): string => configErrorOf(fn).message;

/** Code and range of each diagnostic: where an editor, a JSON reader or a GitHub annotation points. */
const placesOf = (fn: () => unknown) => configErrorOf(fn).diagnostics.map((d) => [d.code, d.line, d.col, d.endLine, d.endCol]);

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

  it("reads secrets.fileRoots relative to the file's folder (none: empty); the confinement adds the file's folder and the credential variables of every environment", async () => {
    const dir = testdir({ 'mftops.yaml': `${GOOD}secrets: { fileRoots: [/run/secrets, ../shared-secrets] }\n` });
    const config = loadConfig('mftops.yaml', dir);
    expect(config.secrets).toEqual({ fileRoots: ['/run/secrets', join(dir, '../shared-secrets')] });
    const { secretConfinementOf } = await import('../../src/app/environment.js');
    expect(secretConfinementOf(config)).toEqual({
      fileRoots: [dir, '/run/secrets', join(dir, '../shared-secrets')],
      credentialVariables: ['MFT_AUTOMATION_PASSWORD', 'MFT_AUTOMATION_USER', 'T'],
    });
    expect(loadConfig('mftops.yaml', testdir({ 'mftops.yaml': GOOD })).secrets).toEqual({ fileRoots: [] });
    const bad = testdir({ 'mftops.yaml': `${GOOD}secrets: { fileRoot: [/run/secrets] }\n` });
    expect(() => loadConfig('mftops.yaml', bad)).toThrow(/MF503|fileRoot/);
  });

  it("reads an environment's vars with their types; refuses a mapping, a bad name and a secret reference as a value (MF505)", () => {
    const withVars = GOOD.replace(
      '    prune: [FolderPermissions]\n',
      '    prune: [FolderPermissions]\n    vars: { retries: 3, partner: acme, strict: true, groups: [Finance, Ops] }\n',
    );
    const config = loadConfig('mftops.yaml', testdir({ 'mftops.yaml': withVars }));
    expect(config.environments.get('prod')?.vars).toEqual({ retries: 3, partner: 'acme', strict: true, groups: ['Finance', 'Ops'] });
    expect(config.environments.get('test')?.vars).toBeUndefined();
    const bad = withVars.replace('strict: true', 'strict: { a: 1 }, 9lives: x, token: "${env:TOKEN}"');
    expect(configErrorOf(() => loadConfig('mftops.yaml', testdir({ 'mftops.yaml': bad }))).diagnostics.map((d) => [d.code, d.summary])).toEqual([
      ['MF505', 'environments.prod.vars.strict: a variable must be a string, a number, a boolean or a list of them'],
      ['MF505', 'environments.prod.vars.9lives: variable names start with a letter or _ and use letters, digits, _, . and -'],
      ['MF505', 'environments.prod.vars.token: a variable cannot hold a secret reference'],
    ]);
  });

  it('reads automation.transferHosts, the hosts the cross-server checks look at; a host named twice, or the key on transfer, is refused', () => {
    const withHosts = GOOD.replace('      caFile: certs/corp-ca.pem\n', '      caFile: certs/corp-ca.pem\n      transferHosts: [xfer, xfer-sftp]\n');
    const config = loadConfig('mftops.yaml', testdir({ 'mftops.yaml': withHosts }));
    expect(config.environments.get('prod')?.transferHosts).toEqual(['xfer', 'xfer-sftp']);
    expect(config.environments.get('test')?.transferHosts).toBeUndefined();
    const twice = configErrorOf(() => loadConfig('mftops.yaml', testdir({ 'mftops.yaml': withHosts.replace('[xfer, xfer-sftp]', '[xfer, xfer]') })));
    expect(twice.diagnostics.map((d) => [d.code, d.summary])).toEqual([['MF505', 'environments.prod.automation.transferHosts: names a host twice']]);
    const onTransfer = GOOD.replace('      username: svc-mftops\n', '      username: svc-mftops\n      transferHosts: [xfer]\n');
    expect(configErrorOf(() => loadConfig('mftops.yaml', testdir({ 'mftops.yaml': onTransfer }))).diagnostics.map((d) => d.code)).toEqual(['MF503']);
  });

  it('reads privilegedAccounts with its defaults and where each allowed account is written; an environment without it has none', () => {
    const withAccounts = GOOD.replace(
      '    prune: [FolderPermissions]\n',
      '    prune: [FolderPermissions]\n    privilegedAccounts:\n      allowUnmanaged:\n        - svc-backup\n        - { name: deployer, service: automation, reason: deploys tasks }\n',
    );
    const prod = loadConfig('mftops.yaml', testdir({ 'mftops.yaml': withAccounts })).environments.get('prod')!;
    expect(prod.privilegedAccounts).toEqual({
      allowUnmanaged: [
        { name: 'svc-backup', where: 'mftops.yaml:19:11' },
        { name: 'deployer', service: 'automation', reason: 'deploys tasks', where: 'mftops.yaml:20:11' },
      ],
      automationAdminGroup: 'Administrators',
      staleSignOnDays: 90,
    });
    expect(loadConfig('mftops.yaml', testdir({ 'mftops.yaml': GOOD })).environments.get('prod')!.privilegedAccounts).toBeUndefined();
  });

  it('refuses a bad privilegedAccounts at each place: an entry that is neither a name nor a mapping, an unknown key, a service, a day count', () => {
    const bad = GOOD.replace(
      '    prune: [FolderPermissions]\n',
      '    prune: [FolderPermissions]\n    privilegedAccounts:\n      allowUnmanaged: [42, { name: x, servce: transfer }, { name: y, service: ftp }]\n      staleSignOnDays: 1.5\n      automationAdminGroup: ""\n',
    );
    const problems = configErrorOf(() => loadConfig('mftops.yaml', testdir({ 'mftops.yaml': bad }))).diagnostics.map((d) => [d.code, d.line, d.col, d.summary]);
    expect(problems).toEqual([
      ['MF505', 18, 24, 'environments.prod.privilegedAccounts.allowUnmanaged.0: must be a username or a mapping { name, service, reason }'],
      ['MF503', 18, 39, 'environments.prod.privilegedAccounts.allowUnmanaged.1: unknown key `servce` — did you mean `service`?'],
      ['MF505', 18, 79, 'environments.prod.privilegedAccounts.allowUnmanaged.2.service: must be one of automation, transfer'],
      ['MF505', 19, 24, 'environments.prod.privilegedAccounts.staleSignOnDays: must be an integer'],
      ['MF505', 20, 29, 'environments.prod.privilegedAccounts.automationAdminGroup: must not be empty'],
    ]);
  });

  it('says where the file is missing and how to point at it: the file, no line', () => {
    const dir = testdir({});
    const err = configErrorOf(() => loadConfig('mftops.yaml', dir));
    expect(err.message).toBe('mftops.yaml: configuration file not found (pass --config FILE, or run from the folder that holds mftops.yaml)');
    expect(err.diagnostics).toEqual([
      {
        severity: 'error',
        code: 'MF501',
        summary: 'configuration file not found',
        hint: 'pass --config FILE, or run from the folder that holds mftops.yaml',
        file: join(dir, 'mftops.yaml'),
      },
    ]);
  });

  it('refuses a literal password with the line it is on', () => {
    const dir = testdir({ 'mftops.yaml': GOOD.replace('${env:T}', 'hunter2') });
    const msg = errorOf(() => loadConfig('mftops.yaml', dir));
    expect(msg).toContain('mftops.yaml:21:17: environments.test.transfer.password: must be a ${env:NAME} or ${file:PATH} reference');
    expect(msg).not.toContain('hunter2');
    const err = configErrorOf(() => loadConfig('mftops.yaml', dir));
    expect(err.diagnostics.map((d) => [d.code, d.line, d.col, d.endLine, d.endCol])).toEqual([['MF506', 21, 17, 21, 24]]);
    expect(JSON.stringify(err.diagnostics)).not.toContain('hunter2');
  });

  it('reports every problem at once, each with its code and range', () => {
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
    expect(lines).toContain('mftops.yaml:7:7: environments.prod.transfer: unknown key `usename` — did you mean `username`?');
    expect(lines).toContain('mftops.yaml:5:5: environments.prod.transfer: missing required key `username`');
    expect(lines).toContain('mftops.yaml:9:13: environments.prod.prune.0: must be one of Task, ResourceGroupAcl, FolderPermissions, User, Group');
    expect(lines).toContain('mftops.yaml:10:3: environments.empty: needs at least one of `automation`, `transfer`');
    // Each is a coded diagnostic with its range, sorted.
    expect(placesOf(() => loadConfig('mftops.yaml', dir))).toEqual([
      ['MF505', 1, 13, 1, 22], // apiVersion: the value
      ['MF504', 5, 5, 5, 13], // transfer lacks username: its key
      ['MF503', 7, 7, 7, 14], // usename: the unknown key
      ['MF505', 9, 13, 9, 18], // Tasks: the value
      ['MF504', 10, 3, 10, 8], // empty has neither service: its key
    ]);
  });

  it('says "did you mean" for a misspelt key', () => {
    const dir = testdir({
      'mftops.yaml': GOOD.replace('    prune: [FolderPermissions]\n', '    prun: [FolderPermissions]\n    drfit: {}\n    colour: blue\n').replace(
        'snapshots:',
        'snapshot:',
      ),
    });
    const err = configErrorOf(() => loadConfig('mftops.yaml', dir));
    expect(err.diagnostics.map((d) => [d.code, d.line, d.summary])).toEqual([
      ['MF503', 16, 'environments.prod: unknown key `prun` — did you mean `prune`?'],
      ['MF503', 17, 'environments.prod: unknown key `drfit` — did you mean `drift`?'],
      ['MF503', 18, 'environments.prod: unknown key `colour`'],
      ['MF503', 24, 'unknown key `snapshot` — did you mean `snapshots`?'],
    ]);
  });

  it('does not suggest a key the mapping already has', () => {
    const dir = testdir({
      'mftops.yaml': GOOD.replace('      caFile: certs/corp-ca.pem\n', '      caFile: certs/corp-ca.pem\n      urls: https://other.example.com\n'),
    });
    expect(configErrorOf(() => loadConfig('mftops.yaml', dir)).diagnostics.map((d) => d.summary)).toEqual(['environments.prod.automation: unknown key `urls`']);
  });

  it('reports the checks of values (URLs, dates) together with the schema problems of the file', () => {
    const text = GOOD.replace('http://127.0.0.1:8080', 'http://mft.internal:8080')
      .replace(
        '    prune: [FolderPermissions]\n',
        '    prune: [FolderPermissions]\n    drift: { ignore: [{ address: Task/x, until: 2026-02-30 }, { address: Task/y, until: 31.12.2026 }] }\n',
      )
      .replace('      caFile:', '      ca_file:');
    const dir = testdir({ 'mftops.yaml': text });
    expect(placesOf(() => loadConfig('mftops.yaml', dir)).map(([code, line]) => [code, line])).toEqual([
      ['MF503', 9], // ca_file: the schema
      ['MF505', 17], // 2026-02-30: not of the calendar
      ['MF505', 17], // 31.12.2026: not YYYY-MM-DD (the schema), not checked again as a date
      ['MF507', 20], // plain http to a non-loopback host
    ]);
    // A URL the schema rejects (not text) is not checked as a URL as well.
    const number = testdir({ 'mftops.yaml': GOOD.replace('url: http://127.0.0.1:8080', 'url: 8080') });
    expect(placesOf(() => loadConfig('mftops.yaml', number)).map(([code]) => code)).toEqual(['MF505']);
  });

  it('reports an environment name it cannot take once, at that name', () => {
    const dir = testdir({ 'mftops.yaml': GOOD.replace('  test:\n', '  "pre prod":\n') });
    const err = configErrorOf(() => loadConfig('mftops.yaml', dir));
    expect(err.message).toBe('mftops.yaml:17:3: environments.pre prod: environment names use letters, digits, ., _ and -');
    expect(placesOf(() => loadConfig('mftops.yaml', dir))).toEqual([['MF505', 17, 3, 17, 13]]);
  });

  it('codes YAML syntax, bad service URLs and dates that are not of the calendar', () => {
    const yaml = testdir({ 'mftops.yaml': 'apiVersion: mftops/v1\nkind: Config\nkind: Config\n' });
    expect(placesOf(() => loadConfig('mftops.yaml', yaml))).toEqual([['MF502', 3, 1, 3, 2]]);
    const url = testdir({ 'mftops.yaml': GOOD.replace('http://127.0.0.1:8080', 'http://mft.internal:8080') });
    expect(placesOf(() => loadConfig('mftops.yaml', url))).toEqual([['MF507', 19, 12, 19, 36]]);
    const date = testdir({
      'mftops.yaml': GOOD.replace(
        '    prune: [FolderPermissions]\n',
        '    prune: [FolderPermissions]\n    drift: { ignore: [{ address: Task/x, until: 2026-02-30 }] }\n',
      ),
    });
    expect(placesOf(() => loadConfig('mftops.yaml', date))).toEqual([['MF505', 17, 49, 17, 59]]);
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
    // At the reference in mftops.yaml, like the file's other problems.
    expect(configErrorOf(() => resolveService(config, prod, 'automation', { MFT_AUTOMATION_USER: 'ops' })).diagnostics).toEqual([
      {
        severity: 'error',
        code: 'MF508',
        summary: 'environments.prod.automation.password: environment variable MFT_AUTOMATION_PASSWORD is not set',
        file: join(dir, 'mftops.yaml'),
        line: 8,
        col: 17,
        endLine: 8,
        endCol: 47,
      },
    ]);
    const automation = resolveService(config, prod, 'automation', { MFT_AUTOMATION_USER: 'ops', MFT_AUTOMATION_PASSWORD: 'pw' })!;
    expect(automation.username).toBe('ops');
    expect(String(automation.password)).toBe('(sensitive)');
  });

  it('names every missing variable and file of every service at once, each at its reference', () => {
    const dir = testdir({ 'mftops.yaml': GOOD, 'secrets/transfer.txt': '\n' });
    const config = loadConfig('mftops.yaml', dir);
    const prod = selectEnvironment(config, 'prod');
    const error = configErrorOf(() => resolveEnvironmentServices(config, prod, ['automation', 'transfer'], { MFT_AUTOMATION_PASSWORD: '' }));
    expect(error.diagnostics.map((d) => [d.code, d.line, d.summary])).toEqual([
      ['MF508', 7, 'environments.prod.automation.username: environment variable MFT_AUTOMATION_USER is not set'],
      ['MF508', 8, 'environments.prod.automation.password: environment variable MFT_AUTOMATION_PASSWORD is set but empty'],
      ['MF508', 13, `environments.prod.transfer.password: secret file ${join(dir, 'secrets/transfer.txt')} is empty`],
    ]);
    expect(error.message.split('\n')).toHaveLength(3);
    writeFileSync(join(dir, 'secrets/transfer.txt'), 'xfer-pw\n');
    const both = resolveEnvironmentServices(config, prod, ['automation', 'transfer'], { MFT_AUTOMATION_USER: 'ops', MFT_AUTOMATION_PASSWORD: 'pw' });
    expect(both.map((s) => s.name)).toEqual(['automation', 'transfer']);
  });

  it('resolves only the services asked for', () => {
    const dir = testdir({ 'mftops.yaml': GOOD, 'secrets/transfer.txt': 'xfer-pw' });
    const config = loadConfig('mftops.yaml', dir);
    const prod = selectEnvironment(config, 'prod');
    expect(resolveEnvironmentServices(config, prod, ['transfer'], {}).map((s) => s.name)).toEqual(['transfer']);
    expect(resolveEnvironmentServices(config, selectEnvironment(config, 'test'), ['automation'], {})).toEqual([]);
    const automation = resolveService(config, prod, 'automation', { MFT_AUTOMATION_USER: 'ops', MFT_AUTOMATION_PASSWORD: 'pw' })!;
    expect(automation.username).toBe('ops');
    expect(String(automation.password)).toBe('(sensitive)');
  });
});
