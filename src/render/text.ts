import type { JsonValue } from '../plan/model.js';

/**
 * Text helpers every renderer shares. No dependencies: the apply summary and drift reports use
 * these without loading the diff library that plan renderers need.
 */

/**
 * Terminal- and markdown-safe form of a user value shown on one line: line breaks, other control
 * characters and bidirectional overrides (which can make a reviewer read text in the wrong order)
 * become visible escapes. Tabs are left alone.
 */
export function escapeControl(text: string): string {
  return text.replace(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => {
    switch (c) {
      case '\n':
        return '\\n';
      case '\r':
        return '\\r';
      default:
        return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
    }
  });
}

/** `1,234`: no locale, so the output is the same on every machine. */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A one-line JSON form: `["Monday", "Friday"]`, `{"StartTime": "02:00"}`, `"text"`. */
export function formatInline(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return escapeControl(JSON.stringify(value));
  if (Array.isArray(value)) return `[${value.map(formatInline).join(', ')}]`;
  return `{${Object.entries(value)
    .map(([k, v]) => `${escapeControl(JSON.stringify(k))}: ${formatInline(v)}`)
    .join(', ')}}`;
}

/**
 * A user value made inert anywhere in the comment (a table cell, a list item, a `<summary>`,
 * inline HTML): control characters become visible escapes, and every character that markdown,
 * HTML or GitHub gives a meaning to (`| < > & \` * _ [ ] ~ # @ ! $ \\`, quotes) becomes a numeric
 * entity, which markdown never re-reads. `@` so that a name never mentions anyone.
 */
export function escapeMd(text: string): string {
  return escapeControl(text).replace(/[&<>"'|`*_[\]~#@!$\\]/g, (c) => `&#${c.charCodeAt(0)};`);
}
