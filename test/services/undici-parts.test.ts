import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');

/**
 * In a process of its own (this one has undici's index loaded by other tests): the built
 * transport, one JSON answer and one streamed answer from a local server, then which of undici's
 * files the process loaded.
 */
const CHILD = `
import { createRequire } from 'node:module';
import { createServer } from 'node:http';
const { Transport, createDispatcher } = await import(${JSON.stringify(join(ROOT, 'dist/services/transport.js'))});
const server = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ path: req.url }));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const t = new Transport({ service: 'automation', origin: 'http://127.0.0.1:' + server.address().port, dispatcher: createDispatcher({ env: {} }), ownsDispatcher: true });
const json = await t.sendJson({ method: 'GET', path: '/a', retry: 'read' });
const streamed = await t.send({ method: 'GET', path: '/b', retry: 'read' }, async (res) => JSON.parse(await res.body.text()));
await t.close();
server.close();
const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes('/undici/')).map((f) => f.slice(f.lastIndexOf('/undici/') + 8));
console.log(JSON.stringify({ json, streamed, index: loaded.includes('index.js'), files: loaded.length }));
`;

describe("undici's files, not its index (issue 29: start-up)", () => {
  it('sends a gathered and a streamed request with undici loaded file by file, never through its index', () => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD], { encoding: 'utf8', timeout: 30_000 });
    expect(run.stderr).toBe('');
    const out = JSON.parse(run.stdout) as { json: unknown; streamed: unknown; index: boolean; files: number };
    expect(out.json).toEqual({ path: '/a' });
    expect(out.streamed).toEqual({ path: '/b' });
    expect(out.index).toBe(false);
  });
});
