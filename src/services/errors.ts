import { STATUS_CODES } from 'node:http';
import { MftopsError } from '../errors.js';

// Every error and log line starts with the service name.
export type { ServiceName } from '../vocabulary.js';
import type { ServiceName } from '../vocabulary.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Whether a failed request may have changed the server. The apply executor re-reads an object by
 * identity before retrying a write whose outcome is `unknown`, so that a retry never duplicates it.
 *
 * - `not-sent`: the request never reached the server (DNS, refused, TLS, connect timeout).
 * - `rejected`: the server answered and refused it (3xx, 4xx): nothing changed.
 * - `unknown`: the server may have processed it (5xx, reset or timeout after sending, or a 2xx
 *   whose body could not be read).
 */
export type RequestOutcome = 'not-sent' | 'rejected' | 'unknown';

/** One entry of a 422 body's `errors[]` (FieldErrorModel on both services). */
export interface FieldError {
  readonly field: string;
  /** The rejected value as the server echoed it; `(sensitive)` for secret-looking fields. */
  readonly rejected: string;
  readonly message: string;
}

/**
 * What a request was, for error messages. Only method and path (without query string): no
 * headers, no bodies, so no token or password can reach a message or `util.inspect`.
 */
export interface RequestLabel {
  readonly service: ServiceName;
  readonly method: HttpMethod;
  readonly path: string;
}

/**
 * The parts of an error body that mftops shows. Both services' shapes map here: automation
 * `{status, title, detail, errorCode}`, transfer `{title, detail, errorCode}`, 422
 * `{errors: [{field, rejected, message}]}`, token errors `{error, error_description, error_code}`.
 */
export interface ErrorBody {
  readonly title?: string;
  readonly detail?: string;
  readonly errorCode?: number;
  readonly fieldErrors: readonly FieldError[];
  /** OAuth error code of a token call (`invalid_grant`). */
  readonly error?: string;
  readonly errorDescription?: string;
  /** A body that is not the JSON expected: `non-JSON response (text/html, 1234 bytes)`. */
  readonly note?: string;
}

export interface ApiErrorFields extends RequestLabel {
  readonly status: number;
  readonly body: ErrorBody;
  readonly outcome?: RequestOutcome;
  /** Attempts made (retries included); shown in the message when more than one. */
  readonly attempts?: number;
  /** The server kept throttling until the retry budget was spent: the body's note says for how long. */
  readonly throttled?: boolean;
}

/**
 * The server answered with a status mftops cannot use (3xx, 4xx, 5xx), or with a body that is not
 * what the API promises. The message is one line:
 * `automation: PUT /api/v1/tasks/42: 422 Invalid Input: RetryCount must be at most 32000`.
 */
export class ApiError extends MftopsError {
  readonly service: ServiceName;
  readonly method: HttpMethod;
  /** Request path without the query string. */
  readonly path: string;
  readonly status: number;
  readonly title: string | undefined;
  readonly detail: string | undefined;
  readonly errorCode: number | undefined;
  readonly fieldErrors: readonly FieldError[];
  readonly outcome: RequestOutcome;
  readonly attempts: number;
  /** Given up on because the server kept throttling (429, 503) for the whole retry budget. */
  readonly throttled: boolean;
  constructor(fields: ApiErrorFields) {
    super(formatApiMessage(fields));
    this.throttled = fields.throttled ?? false;
    this.service = fields.service;
    this.method = fields.method;
    this.path = fields.path;
    this.status = fields.status;
    this.title = fields.body.title ?? fields.body.error;
    this.detail = fields.body.detail ?? fields.body.errorDescription ?? fields.body.note;
    this.errorCode = fields.body.errorCode;
    this.fieldErrors = fields.body.fieldErrors;
    this.outcome = fields.outcome ?? outcomeOfStatus(fields.status);
    this.attempts = fields.attempts ?? 1;
  }
}

/**
 * A token call failed (bad credentials, refresh token expired), or a call was refused with 401
 * even after a fresh token. `error` is the OAuth code (`invalid_grant`) when the server gave one.
 */
export class AuthError extends ApiError {
  readonly error: string | undefined;
  constructor(fields: ApiErrorFields) {
    super(fields);
    this.error = fields.body.error;
  }
}

export interface TransportFailureFields extends RequestLabel {
  /** The system or undici code (`ECONNRESET`, `UND_ERR_HEADERS_TIMEOUT`, `CERT_HAS_EXPIRED`). */
  readonly code: string;
  readonly outcome: RequestOutcome;
  readonly attempts?: number;
  /** Extra words for the message (`connection refused`, `TLS certificate not trusted …`). */
  readonly reason: string;
}

/** The connection failed: reset, refused, DNS, TLS. No response was read. */
export class NetworkError extends MftopsError {
  readonly service: ServiceName;
  readonly method: HttpMethod;
  readonly path: string;
  readonly code: string;
  readonly outcome: RequestOutcome;
  readonly attempts: number;
  constructor(fields: TransportFailureFields) {
    super(formatTransportMessage(fields));
    this.service = fields.service;
    this.method = fields.method;
    this.path = fields.path;
    this.code = fields.code;
    this.outcome = fields.outcome;
    this.attempts = fields.attempts ?? 1;
  }
}

/** No answer (headers or body) within the configured time, or no connection in time. */
export class TimeoutError extends NetworkError {}

/** 3xx and 4xx mean the server refused the request; anything else may have been processed. */
export function outcomeOfStatus(status: number): RequestOutcome {
  return status >= 300 && status < 500 ? 'rejected' : 'unknown';
}

function formatApiMessage(f: ApiErrorFields): string {
  const b = f.body;
  if (f.throttled === true) return `${f.service}: ${f.method} ${f.path}: ${oneLine(b.note)} (${f.attempts ?? 1} attempts)`;
  const title = b.title ?? b.error ?? STATUS_CODES[f.status] ?? 'Error';
  const texts: string[] = [];
  for (const t of [b.detail, b.errorDescription, ...b.fieldErrors.map(formatFieldError), b.note]) {
    const line = oneLine(t);
    if (line !== '' && line !== title && !texts.includes(line)) texts.push(line);
  }
  const tail = texts.length > 0 ? `: ${texts.join('; ')}` : '';
  return `${f.service}: ${f.method} ${f.path}: ${f.status} ${oneLine(title)}${tail}${attemptsSuffix(f.attempts)}`;
}

function formatFieldError(e: FieldError): string {
  if (e.message === '') return e.field === '' ? '' : `${e.field} is invalid`;
  // Servers usually name the field in the message already; do not say it twice.
  if (e.field === '' || e.message.toLowerCase().includes(e.field.toLowerCase())) return e.message;
  return `${e.field}: ${e.message}`;
}

function formatTransportMessage(f: TransportFailureFields): string {
  return `${f.service}: ${f.method} ${f.path}: ${f.reason} (${f.code})${attemptsSuffix(f.attempts)}`;
}

function attemptsSuffix(attempts: number | undefined): string {
  return attempts !== undefined && attempts > 1 ? ` (gave up after ${attempts} attempts)` : '';
}

const MAX_TEXT = 300;

/** Server text made safe for a one-line message: no newlines, bounded length. */
export function oneLine(text: string | undefined): string {
  if (text === undefined) return '';
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_TEXT ? `${flat.slice(0, MAX_TEXT - 1)}…` : flat;
}
