import type { EnvironmentDiff, LiveStanding, ObjectDiff, Presence } from '../plan/diff-environments.js';
import type { JsonValue, SourceRef } from '../plan/model.js';
import { renderJsonOutput } from './json-output.js';
import { escapeControl, escapeMd, formatInline } from './text.js';
import { displayValue } from './values.js';

/**
 * The promotion view of `mftops diff-env A B` in text (terminal), markdown (a pull-request
 * comment or a release note) and JSON (`mftops.diff-env`). Pure.
 */

/** `<` only in a, `>` only in b, `~` declared differently, `!` declared alike but a server is not in sync. */
function symbolOf(presence: Presence): string {
  switch (presence) {
    case 'only-in-a':
      return '<';
    case 'only-in-b':
      return '>';
    case 'differ':
      return '~';
    case 'same':
      return '!';
    default: {
      const never: never = presence;
      throw new Error(`unknown presence ${String(never)}`);
    }
  }
}

function presencePhrase(o: ObjectDiff, diff: EnvironmentDiff): string {
  switch (o.presence) {
    case 'only-in-a':
      return `only in ${diff.a}`;
    case 'only-in-b':
      return `only in ${diff.b}`;
    case 'differ':
      return `differs in ${o.fields.length} ${o.fields.length === 1 ? 'field' : 'fields'}`;
    case 'same':
      return 'declared alike';
    default: {
      const never: never = o.presence;
      throw new Error(`unknown presence ${String(never)}`);
    }
  }
}

/** `1 only in staging, 2 only in production, 3 differ, 20 the same.` */
export function diffEnvSentence(diff: EnvironmentDiff): string {
  const s = diff.summary;
  const parts = [`${s.onlyInA} only in ${diff.a}`, `${s.onlyInB} only in ${diff.b}`, `${s.differ} declared differently`];
  if (!diff.offline) parts.push(`${s.sameButNotInSync} declared alike but not in sync on a server`);
  parts.push(`${s.same} the same`);
  return `${parts.join(', ')}.`;
}

/** Paths named per server standing: the plan of that environment has them all. */
const FIELDS_SHOWN = 4;

function standingText(live: LiveStanding): string {
  if (live.inSync) return 'in sync';
  const shown = live.fields.slice(0, FIELDS_SHOWN);
  const more = live.fields.length > shown.length ? ` and ${live.fields.length - shown.length} more` : '';
  const where = shown.length > 0 ? `: ${shown.join(', ')}${more}` : '';
  return `not in sync (the plan would ${live.action === 'blocked' ? 'be blocked' : live.action}${where})`;
}

function place(source: SourceRef | undefined): string {
  return source === undefined ? '' : `${source.file}:${source.line}`;
}

function valueText(value: JsonValue | undefined): string {
  return value === undefined ? '(not set)' : formatInline(displayValue(value));
}

export function renderDiffEnvText(diff: EnvironmentDiff): string {
  const width = Math.max(diff.a.length, diff.b.length);
  const label = (name: string) => `${escapeControl(name)}:`.padEnd(width + 2);
  const lines = [
    `Comparing environment ${escapeControl(diff.a)} with ${escapeControl(diff.b)}${diff.offline ? ' (manifests only: no server read)' : ' (manifests, and each server against its own manifests)'}.`,
    '',
  ];
  for (const o of diff.objects) {
    lines.push(`${symbolOf(o.presence)} ${escapeControl(o.address)}: ${presencePhrase(o, diff)}`);
    for (const [side, name] of [
      ['a', diff.a],
      ['b', diff.b],
    ] as const) {
      const source = o.source[side];
      if (source !== undefined) lines.push(`    declared in ${escapeControl(name)} at ${escapeControl(place(source))}`);
    }
    for (const f of o.fields) {
      lines.push(`    ${escapeControl(f.path)}`);
      lines.push(`      ${label(diff.a)}${valueText(f.a)}`);
      lines.push(`      ${label(diff.b)}${valueText(f.b)}`);
    }
    for (const [side, name] of [
      ['a', diff.a],
      ['b', diff.b],
    ] as const) {
      const live = o.live?.[side];
      if (live !== undefined) lines.push(`    server of ${escapeControl(name)}: ${escapeControl(standingText(live))}`);
    }
    lines.push('');
  }
  if (diff.objects.length === 0)
    lines.push(
      diff.offline
        ? 'No differences: both environments declare the same objects alike.'
        : 'No differences: both environments declare the same objects alike, and both servers are in sync with them.',
      '',
    );
  lines.push(`Environments: ${escapeControl(diffEnvSentence(diff))}`);
  return `${lines.join('\n')}\n`;
}

export function renderDiffEnvMarkdown(diff: EnvironmentDiff): string {
  const a = escapeMd(diff.a);
  const b = escapeMd(diff.b);
  const lines = [`## mftops diff-env: ${a} → ${b}`, '', `${escapeMd(diffEnvSentence(diff))}${diff.offline ? ' Manifests only: no server was read.' : ''}`, ''];
  if (diff.objects.length > 0) {
    lines.push(`| | Object | ${a} | ${b} |`, '| --- | --- | --- | --- |');
    for (const o of diff.objects) {
      const cell = (side: 'a' | 'b') => {
        const source = o.source[side];
        const live = o.live?.[side];
        const declared = source === undefined ? 'not declared' : escapeMd(place(source));
        return live === undefined ? declared : `${declared}<br>server: ${escapeMd(standingText(live))}`;
      };
      lines.push(`| ${escapeMd(symbolOf(o.presence))} | ${escapeMd(o.address)}: ${escapeMd(presencePhrase(o, diff))} | ${cell('a')} | ${cell('b')} |`);
    }
    lines.push('');
    const differing = diff.objects.filter((o) => o.fields.length > 0);
    for (const o of differing) {
      lines.push(`<details><summary>${escapeMd(o.address)}</summary>`, '', `| Field | ${a} | ${b} |`, '| --- | --- | --- |');
      for (const f of o.fields) lines.push(`| ${escapeMd(f.path)} | ${escapeMd(valueText(f.a))} | ${escapeMd(valueText(f.b))} |`);
      lines.push('', '</details>', '');
    }
  }
  return `${lines.join('\n')}\n`;
}

/** `mftops.diff-env` version 1 (schemas/output-diff-env.schema.json). */
export function renderDiffEnvJson(diff: EnvironmentDiff): string {
  return renderJsonOutput('mftops.diff-env', {
    a: diff.a,
    b: diff.b,
    offline: diff.offline,
    differ: diff.objects.length > 0,
    summary: diff.summary,
    objects: diff.objects,
  });
}
