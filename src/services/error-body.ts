import type { ErrorBody, FieldError } from './errors.js';
import { isRecord } from '../is-record.js';

/** Field names whose rejected value is never shown, whatever the server echoes. */
const SECRET_FIELD = /pass|secret|token|key|credential/i;

/**
 * The error body of any status from either service, read liberally (gaps.md). `redact` removes
 * known secret values from every string the server sent back; a body that is not JSON becomes a
 * `note` naming its content type and size.
 */
export function parseErrorBody(bytes: Buffer, contentType: string | undefined, redact: (text: string) => string): ErrorBody {
  const parsed = tryParseJson(bytes);
  if (parsed.ok && isRecord(parsed.value)) {
    const v = parsed.value;
    const str = (x: unknown): string | undefined => (typeof x === 'string' ? redact(x) : typeof x === 'number' ? String(x) : undefined);
    const code = typeof v.errorCode === 'number' ? v.errorCode : typeof v.error_code === 'number' ? v.error_code : undefined;
    return {
      title: str(v.title),
      // `message` is what the transfer service's revoke and some proxies answer with.
      detail: str(v.detail) ?? str(v.message),
      errorCode: code,
      fieldErrors: readFieldErrors(v.errors, redact),
      error: str(v.error),
      errorDescription: str(v.error_description),
    };
  }
  if (bytes.length === 0) return { fieldErrors: [] };
  return { fieldErrors: [], note: describeUnexpectedBody(bytes, contentType, parsed.ok ? 'not an object' : undefined, redact) };
}

function readFieldErrors(raw: unknown, redact: (text: string) => string): FieldError[] {
  if (!Array.isArray(raw)) return [];
  const out: FieldError[] = [];
  for (const e of raw) {
    if (typeof e === 'string') {
      out.push({ field: '', rejected: '', message: redact(e) });
      continue;
    }
    if (!isRecord(e)) continue;
    const field = typeof e.field === 'string' ? e.field : '';
    const rejected = e.rejected === undefined || e.rejected === null ? '' : SECRET_FIELD.test(field) ? '(sensitive)' : redact(String(e.rejected));
    const message = typeof e.message === 'string' ? redact(e.message) : typeof e.defaultMessage === 'string' ? redact(e.defaultMessage) : '';
    out.push({ field, rejected, message });
  }
  return out;
}

/**
 * One phrase for a body that is not the JSON the API promises: content type and size, plus the
 * first words of a plain-text body (HTML is not quoted: it is a proxy's error page).
 */
export function describeUnexpectedBody(bytes: Buffer, contentType: string | undefined, why: string | undefined, redact: (text: string) => string): string {
  const type = contentType?.split(';')[0]?.trim() || 'no content type';
  const reason = why ?? (looksLikeJson(contentType) ? 'invalid or truncated JSON' : 'non-JSON response');
  let text = '';
  if (type === 'text/plain' && bytes.length > 0) {
    const snippet = redact(bytes.subarray(0, 200).toString('utf8')).replace(/\s+/g, ' ').trim();
    if (snippet !== '') text = `: ${snippet}`;
  }
  return `${reason} (${type}, ${bytes.length} bytes)${text}`;
}

export function looksLikeJson(contentType: string | undefined): boolean {
  return contentType !== undefined && /[/+]json\b/i.test(contentType);
}

export function tryParseJson(bytes: Buffer): { ok: true; value: unknown } | { ok: false } {
  if (bytes.length === 0) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(bytes.toString('utf8')) as unknown };
  } catch {
    return { ok: false };
  }
}
