import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, EnvHttpProxyAgent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { parseBaseUrl } from '../../src/services/connection.js';
import { createDispatcher } from '../../src/services/transport.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mftops-transport-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('dispatcher', () => {
  it('is a plain keep-alive Agent without proxy variables', async () => {
    const d = createDispatcher({ env: {} });
    expect(d).toBeInstanceOf(Agent);
    await d.close();
  });

  it('goes through EnvHttpProxyAgent when HTTPS_PROXY or https_proxy is set', async () => {
    for (const env of [
      { HTTPS_PROXY: 'http://proxy.corp:3128' },
      { https_proxy: 'http://proxy.corp:3128', NO_PROXY: 'localhost' },
      { HTTP_PROXY: 'http://p:1' },
    ]) {
      const d = createDispatcher({ env });
      expect(d).toBeInstanceOf(EnvHttpProxyAgent);
      await d.close();
    }
  });

  it('reads an extra CA file, and names a missing one in a ConfigError', async () => {
    const pem = join(dir, 'corp-ca.pem');
    await writeFile(pem, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const d = createDispatcher({ caFile: pem, env: {} });
    expect(d).toBeInstanceOf(Agent);
    await d.close();
    const missing = join(dir, 'nope.pem');
    expect(() => createDispatcher({ caFile: missing, env: {} })).toThrow(ConfigError);
    expect(() => createDispatcher({ caFile: missing, env: {} })).toThrow(`cannot read caFile ${missing} (ENOENT)`);
  });
});

describe('base URL', () => {
  it('splits origin and path prefix, dropping a trailing slash', () => {
    expect(parseBaseUrl('transfer', 'https://mft.example.com:8443/files/')).toEqual({ origin: 'https://mft.example.com:8443', basePath: '/files' });
    expect(parseBaseUrl('automation', 'https://a.example.com')).toEqual({ origin: 'https://a.example.com', basePath: '' });
  });

  it('allows plain http on loopback only, and refuses credentials in the URL', () => {
    expect(parseBaseUrl('automation', 'http://localhost:9000').origin).toBe('http://localhost:9000');
    expect(parseBaseUrl('automation', 'http://[::1]:9000').origin).toBe('http://[::1]:9000');
    expect(() => parseBaseUrl('automation', 'http://10.0.0.5')).toThrow('automation url: plain http:// is refused for 10.0.0.5');
    expect(() => parseBaseUrl('transfer', 'https://u:p@mft.example.com')).toThrow('transfer url: must not contain credentials');
    expect(() => parseBaseUrl('transfer', 'mft.example.com')).toThrow(ConfigError);
  });
});
