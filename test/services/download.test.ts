import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAutomationClient } from '../../src/services/automation/client.js';
import { Secret } from '../../src/secret.js';

/** Streams the export in chunks of many sizes (1 byte to 200 KiB): the client gathers them before writing. */
const body = randomBytes(3 * 1024 * 1024 + 12_345);
const sizes = [1, 7, 65_536, 200_000, 3, 4096];
const server = createServer((req, res) => {
  req.resume();
  if (req.url?.endsWith('/token/revoke')) return res.writeHead(200).end();
  if (req.url?.endsWith('/token')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ access_token: 'a', refresh_token: 'r', token_type: 'bearer', expires_in: 300 }));
  }
  res.writeHead(200, { 'content-type': 'application/xml' });
  // Thousands of 1-byte writes first (more chunks than one batch holds), then the rest in mixed sizes.
  let at = 0;
  for (let i = 0; i < 3000; i++) res.write(body.subarray(at, ++at));
  for (let i = 0; at < body.length; i++) {
    const n = sizes[i % sizes.length]!;
    res.write(body.subarray(at, at + n));
    at += n;
  }
  res.end();
});

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mftops-download-'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await rm(dir, { recursive: true, force: true });
});

describe('a streamed download', () => {
  it('writes every byte in order, however the server cuts the chunks', async () => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const client = createAutomationClient({ url, username: 'admin', password: new Secret('pw') });
    try {
      const dest = join(dir, 'export.xml');
      const result = await client.exportConfig(dest);
      const written = await readFile(dest);
      expect(written.length).toBe(body.length);
      expect(written.equals(body)).toBe(true);
      expect(result).toEqual({ bytes: body.length, sha256: createHash('sha256').update(body).digest('hex') });
    } finally {
      await client.close();
    }
  });
});
