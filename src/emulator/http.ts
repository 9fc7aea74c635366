import type { IncomingHttpHeaders } from 'node:http';
import type { Json } from './json.js';

/** One API request as the service handlers see it: body already read, path relative to `/api/v1`. */
export interface ApiRequest {
  readonly method: string;
  /** Path below the service's `/api/v1`, e.g. `/tasks/123`; segments still percent-encoded. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly remoteAddress: string;
}

/** A response before it is written; `body` is the exact text sent. */
export interface ApiResponse {
  readonly status: number;
  readonly body?: string;
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** One entry of `errors[]` in a 422 body (both services). */
export interface FieldError {
  readonly field: string;
  readonly rejected: string;
  readonly message: string;
}

export function jsonResponse(status: number, value: Json | object, headers?: Record<string, string>): ApiResponse {
  return { status, body: JSON.stringify(value), contentType: 'application/json; charset=utf-8', ...(headers ? { headers } : {}) };
}

export function emptyResponse(status: number): ApiResponse {
  return { status };
}

const TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function titleFor(status: number): string {
  return TITLES[status] ?? 'Error';
}

/** Automation Server Error Message `{status, title, detail, errorCode?}`; 422 adds `errors[]`. */
export function automationError(status: number, detail: string, errors?: readonly FieldError[], headers?: Record<string, string>): ApiResponse {
  const body: Record<string, unknown> = { status, title: titleFor(status), detail };
  if (errors) body.errors = errors;
  return jsonResponse(status, body, headers);
}

/** Transfer ErrorModel `{title, detail, errorCode}` (no `status`); 422 adds `errors[]`. errorCode is the HTTP status. */
export function transferError(status: number, detail: string, errors?: readonly FieldError[], headers?: Record<string, string>): ApiResponse {
  const body: Record<string, unknown> = { title: titleFor(status), detail, errorCode: status };
  if (errors) body.errors = errors;
  return jsonResponse(status, body, headers);
}

/** Parse a JSON request body; `undefined` body text gives `undefined`. */
export function parseJsonBody(req: ApiRequest): { ok: true; value: unknown } | { ok: false; detail: string } {
  const text = req.body.toString('utf8');
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    return { ok: false, detail: `request body is not valid JSON: ${(err as Error).message}` };
  }
}

export function isFormRequest(req: ApiRequest): boolean {
  return (req.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');
}

export function isJsonRequest(req: ApiRequest): boolean {
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  return type.startsWith('application/json') || type.startsWith('text/json') || type.includes('+json');
}

export type Params = Readonly<Record<string, string>>;

/** A route of one service: `pattern` segments starting with `:` bind a parameter (percent-decoded). */
export interface Route<C> {
  readonly method: string;
  readonly pattern: string;
  readonly handle: (ctx: C, params: Params) => ApiResponse;
}

export type RouteMatch<C> =
  | { readonly kind: 'found'; readonly route: Route<C>; readonly params: Params }
  | { readonly kind: 'method-not-allowed' }
  | { readonly kind: 'not-found' };

/** First route whose pattern and method match; routes are tried in order, so literals go first. */
export function matchRoute<C>(routes: readonly Route<C>[], method: string, path: string): RouteMatch<C> {
  const segments = path.split('/').slice(1);
  let pathMatched = false;
  for (const route of routes) {
    const parts = route.pattern.split('/').slice(1);
    if (parts.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < parts.length && ok; i++) {
      const part = parts[i]!;
      const seg = segments[i]!;
      if (part.startsWith(':')) {
        if (seg === '') ok = false;
        else {
          try {
            params[part.slice(1)] = decodeURIComponent(seg);
          } catch {
            ok = false;
          }
        }
      } else if (part !== seg) ok = false;
    }
    if (!ok) continue;
    pathMatched = true;
    if (route.method === method) return { kind: 'found', route, params };
  }
  return pathMatched ? { kind: 'method-not-allowed' } : { kind: 'not-found' };
}
