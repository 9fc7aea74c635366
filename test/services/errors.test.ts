import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ApiError, AuthError, NetworkError } from '../../src/services/errors.js';
import { AUTOMATION, JSON_HEADERS, PASSWORD, TRANSFER, automationClient, createMock, recordingLogger, replyToken, transferClient } from './helpers.js';

async function failure(p: Promise<unknown>): Promise<Error> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof Error)) throw new Error('expected the call to fail');
  return err;
}

describe('error bodies become one-line messages', () => {
  it('automation {status, title, detail, errorCode}', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/tasks/42', method: 'PUT' }).reply(
      422,
      { status: 422, title: 'Invalid Input', detail: 'RetryCount must be at most 32000', errorCode: 4001 },
      { headers: JSON_HEADERS },
    );
    const err = await failure(automationClient(agent).updateTask('42', { Name: 'x' }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toBe('automation: PUT /api/v1/tasks/42: 422 Invalid Input: RetryCount must be at most 32000');
    expect(err).toMatchObject({
      service: 'automation',
      method: 'PUT',
      path: '/api/v1/tasks/42',
      status: 422,
      title: 'Invalid Input',
      errorCode: 4001,
      outcome: 'rejected',
    });
  });

  it('transfer {title, detail, errorCode} without status', async () => {
    const { agent, pool } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    t.intercept({ path: '/api/v1/folders/12' }).reply(
      403,
      { title: 'Forbidden', detail: 'You do not have access to folder 12', errorCode: 3000 },
      { headers: JSON_HEADERS },
    );
    const err = await failure(transferClient(agent).getFolder(12));
    expect(err.message).toBe('transfer: GET /api/v1/folders/12: 403 Forbidden: You do not have access to folder 12');
    expect(err).toMatchObject({ status: 403, errorCode: 3000 });
  });

  it('422 errors[] with field errors, and a secret-looking rejected value hidden', async () => {
    const { agent, pool } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    t.intercept({ path: '/api/v1/folders/3/acls', method: 'PUT' }).reply(
      422,
      {
        title: 'Validation failed',
        errors: [
          { field: 'type', rejected: 'Robot', message: 'type must be User or Group' },
          { field: 'password', rejected: 'hunter2-literal', message: 'is too short' },
        ],
      },
      { headers: JSON_HEADERS },
    );
    const err = await failure(transferClient(agent).setFolderAcl('3', { type: 'User', id: '9', permissions: {} }));
    expect(err.message).toBe('transfer: PUT /api/v1/folders/3/acls: 422 Validation failed: type must be User or Group; password: is too short');
    expect((err as ApiError).fieldErrors).toEqual([
      { field: 'type', rejected: 'Robot', message: 'type must be User or Group' },
      { field: 'password', rejected: '(sensitive)', message: 'is too short' },
    ]);
  });

  it('a detail and field errors are both shown, detail first', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/tasks', method: 'POST' }).reply(
      422,
      { status: 422, title: 'Invalid Input', detail: 'The task is invalid', errors: [{ field: 'Name', rejected: '', message: 'Name is required' }] },
      { headers: JSON_HEADERS },
    );
    const err = await failure(automationClient(agent).createTask({}));
    expect(err.message).toBe('automation: POST /api/v1/tasks: 422 Invalid Input: The task is invalid; Name is required');
  });

  it('token errors {error, error_description, error_code}', async () => {
    const { agent, pool } = createMock();
    const t = pool(TRANSFER);
    t.intercept({ path: '/api/v1/token', method: 'POST' }).reply(
      400,
      { error: 'invalid_grant', error_description: 'Account locked', error_code: 12 },
      { headers: JSON_HEADERS },
    );
    const err = await failure(transferClient(agent).currentUser());
    expect(err).toBeInstanceOf(AuthError);
    expect(err.message).toBe('transfer: POST /api/v1/token: 400 invalid_grant: Account locked');
    expect(err).toMatchObject({ errorCode: 12, error: 'invalid_grant' });
  });

  it('an HTML error page from a proxy names status and content type', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    const html = '<html><head><title>Oops</title></head><body>gateway</body></html>';
    a.intercept({ path: '/api/v1/tasks/1', method: 'DELETE' }).reply(502, html, { headers: { 'content-type': 'text/html; charset=utf-8' } });
    const err = await failure(automationClient(agent).deleteTask('1'));
    expect(err.message).toBe(`automation: DELETE /api/v1/tasks/1: 502 Bad Gateway: non-JSON response (text/html, ${html.length} bytes)`);
    expect(err).toMatchObject({ outcome: 'unknown' });
  });

  it('an HTML page with status 200 where JSON was expected is an error, not a crash', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/info' }).reply(200, '<html>login</html>', { headers: { 'content-type': 'text/html' } });
    const err = await failure(automationClient(agent).info());
    expect(err).toBeInstanceOf(ApiError);
    expect(err.message).toBe('automation: GET /api/v1/info: 200 OK: non-JSON response (text/html, 18 bytes)');
  });

  it('a truncated JSON body is reported with its content type', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/tasks' }).reply(200, '{"items": [{"ID": "1", "Na', { headers: JSON_HEADERS });
    const err = await failure(automationClient(agent).listTasks());
    expect(err.message).toBe('automation: GET /api/v1/tasks: 200 OK: invalid or truncated JSON (application/json, 26 bytes)');
  });

  it('a redirect is refused and names only the Location host', async () => {
    const { agent, pool, calls } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: 'tok' });
    a.intercept({ path: '/api/v1/info' }).reply(302, '', { headers: { location: 'https://evil.example/steal?token=abc' } });
    const err = await failure(automationClient(agent).info());
    expect(err.message).toBe(
      'automation: GET /api/v1/info: 302 Found: redirect to evil.example refused: mftops never follows redirects (check the configured URL)',
    );
    expect(calls().some((c) => c.path.includes('steal'))).toBe(false);
  });

  it('the path in an error carries no query string', async () => {
    const { agent, pool } = createMock();
    const t = pool(TRANSFER);
    replyToken(t, { access: 'tok' });
    t.intercept({ path: /^\/api\/v1\/users\?/ })
      .reply(500, { title: 'Internal Server Error', detail: 'db down' }, { headers: JSON_HEADERS })
      .times(5);
    const err = await failure(transferClient(agent).findUser('alice'));
    expect(err).toMatchObject({ path: '/api/v1/users' });
    expect(err.message).not.toContain('alice');
  });
});

describe('secrets never leak', () => {
  const ACCESS = 'ACCESS-TOKEN-SEED-123';
  const REFRESH = 'REFRESH-TOKEN-SEED-456';
  const secrets = [PASSWORD, ACCESS, REFRESH];

  function scan(err: Error, lines: string[]): string[] {
    const texts = [err.message, inspect(err, { depth: 10 }), JSON.stringify(err), String(err.stack), ...lines];
    return secrets.filter((s) => texts.some((t) => t.includes(s)));
  }

  it('not in errors that echo the password or the token, nor in their inspect output or logs', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: ACCESS, refresh: REFRESH });
    a.intercept({ path: '/api/v1/tasks', method: 'POST' }).reply(
      422,
      {
        status: 422,
        title: 'Invalid Input',
        detail: `Password ${PASSWORD} rejected for token ${ACCESS}`,
        errors: [{ field: 'Source.Pwd', rejected: PASSWORD, message: `bad value ${PASSWORD}` }],
      },
      { headers: JSON_HEADERS },
    );
    const logger = recordingLogger();
    const err = await failure(automationClient(agent, { logger }).createTask({ Name: 'x' }));
    expect(err.message).toContain('(sensitive)');
    expect(scan(err, logger.lines)).toEqual([]);
  });

  it('not in an auth failure, a network failure or an unmatched request', async () => {
    const { agent, pool } = createMock();
    const a = pool(AUTOMATION);
    replyToken(a, { access: ACCESS, refresh: REFRESH });
    a.intercept({ path: '/api/v1/info' })
      .replyWithError(Object.assign(new Error(`socket hang up ${ACCESS}`), { code: 'UND_ERR_SOCKET' }))
      .times(5);
    const logger = recordingLogger();
    const client = automationClient(agent, { logger });
    const net = await failure(client.info());
    expect(net).toBeInstanceOf(NetworkError);
    expect(scan(net, logger.lines)).toEqual([]);
    // A header matcher that fails: the mock's own error lists the request headers.
    a.intercept({ path: '/api/v1/tasks/77', headers: { 'x-never-sent': 'y' } }).reply(200, {}, { headers: JSON_HEADERS });
    const unmatched = await failure(client.getTask('77'));
    expect(unmatched.message).toContain('Bearer (sensitive)');
    expect(scan(unmatched, logger.lines)).toEqual([]);

    const b = createMock();
    b.pool(AUTOMATION)
      .intercept({ path: '/api/v1/token', method: 'POST' })
      .reply(401, { error: 'invalid_client', error_description: `bad password ${PASSWORD}` }, { headers: JSON_HEADERS });
    const auth = await failure(automationClient(b.agent, { logger }).info());
    expect(auth).toBeInstanceOf(AuthError);
    expect(scan(auth, logger.lines)).toEqual([]);
  });
});
