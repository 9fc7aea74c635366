import type { Dispatcher } from 'undici';
import agent from 'undici/lib/dispatcher/agent.js';
import envHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import undiciErrors from 'undici/lib/core/errors.js';
import apiRequest from 'undici/lib/api/api-request.js';

/**
 * The parts of undici the transport uses, each loaded from its own file. The package's index
 * loads all of undici (fetch, WebSocket, the mock, cache and HTTP/2 layers): 155-181 ms of CPU
 * against 63-71 ms for these files (5 cold `node -e` each, a loaded 2-core machine; issue 29),
 * paid by every command that opens a client before its first request. They are the files the
 * index loads, so the classes are the package's own (`instanceof` against its exports holds).
 * These paths are not undici's public interface, so package.json pins undici to the exact version
 * they were checked against (an install from npm then gets that version, not a later 7.x that may
 * have moved them); test/services/undici-parts.test.ts fails when an update moves them.
 */
export const Agent = agent;
export const EnvHttpProxyAgent = envHttpProxyAgent;
export const errors = undiciErrors;

/**
 * `dispatcher.request(options)`: the index adds `request` to every dispatcher's prototype when it
 * loads, so without it the method is called as the function it is, on any dispatcher (a test's
 * MockAgent too).
 */
export function requestWith(dispatcher: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  return apiRequest.call(dispatcher, options);
}
