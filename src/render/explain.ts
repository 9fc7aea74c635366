import type { DiagnosticExplanation } from '../diagnostic-catalogue.js';
import type { DiagnosticCode } from '../diagnostics.js';
import { renderJsonOutput } from './json-output.js';

/** One diagnostic code with what `mftops explain` says about it. */
export interface ExplainedCode {
  readonly code: DiagnosticCode;
  /** The code's name in the table of src/diagnostics.ts, e.g. `unknown-field`. */
  readonly name: string;
  readonly explanation: DiagnosticExplanation;
}

/**
 * What `mftops explain [CODE]` found: every code (`list`, no code asked for), the one asked for,
 * or none (`unknown`, with the nearest code or name when one is close).
 */
export type ExplainReport =
  | { readonly status: 'list'; readonly codes: readonly ExplainedCode[] }
  | { readonly status: 'found'; readonly code: ExplainedCode }
  | { readonly status: 'unknown'; readonly query: string; readonly suggestion?: string };

/** Which stage of mftops reports a code, by its block in the table. */
export function stageOf(code: DiagnosticCode): string {
  switch (code[2]) {
    case '4':
      return 'plan: the manifests are valid but do not fit the servers';
    case '5':
      return 'configuration: mftops.yaml';
    default:
      return 'manifests: mftops validate';
  }
}

export function renderExplainText(report: Exclude<ExplainReport, { status: 'unknown' }>): string {
  if (report.status === 'list') {
    const width = Math.max(...report.codes.map((c) => c.name.length));
    const lines = report.codes.map((c) => `${c.code}  ${c.name.padEnd(width)}  ${firstSentence(c.explanation.meaning)}`);
    return `${lines.join('\n')}\n\nmftops explain CODE shows what a code means, an example that triggers it and the fix.\n`;
  }
  const { code, name, explanation: e } = report.code;
  return [
    `${code} ${name} (${stageOf(code)})`,
    '',
    e.meaning,
    '',
    `Example (${exampleTitle(e)}):`,
    '',
    ...indent(exampleBody(e)),
    '',
    `Fix: ${e.fix}`,
    '',
  ].join('\n');
}

export function renderExplainMarkdown(report: Exclude<ExplainReport, { status: 'unknown' }>): string {
  if (report.status === 'list') {
    const rows = report.codes.map((c) => `| ${c.code} | \`${c.name}\` | ${firstSentence(c.explanation.meaning).replace(/\|/g, '\\|')} |`);
    return `| code | name | meaning |\n|---|---|---|\n${rows.join('\n')}\n`;
  }
  const { code, name, explanation: e } = report.code;
  const fence = e.example.in === 'command' ? 'sh' : 'yaml';
  return [
    `## ${code} \`${name}\``,
    '',
    `*${stageOf(code)}*`,
    '',
    e.meaning,
    '',
    `**Example** (${exampleTitle(e)}):`,
    '',
    `\`\`\`${fence}`,
    ...exampleBody(e),
    '```',
    '',
    `**Fix:** ${e.fix}`,
    '',
  ].join('\n');
}

export function renderExplainJson(report: Exclude<ExplainReport, { status: 'unknown' }>): string {
  const entry = (c: ExplainedCode) => ({ code: c.code, name: c.name, stage: stageOf(c.code).split(':')[0], ...c.explanation });
  const body = report.status === 'list' ? { codes: report.codes.map(entry) } : { code: entry(report.code) };
  return renderJsonOutput('mftops.explain', body);
}

function exampleTitle(e: DiagnosticExplanation): string {
  const example = e.example;
  switch (example.in) {
    case 'manifest':
      return 'a manifest';
    case 'config':
      return 'mftops.yaml';
    case 'plan':
      return `a manifest, where ${example.against}`;
    case 'command':
      return example.setup !== undefined ? `a command, where ${example.setup}` : 'a command';
    default: {
      const never: never = example;
      throw new Error(`unknown example ${JSON.stringify(never)}`);
    }
  }
}

function exampleBody(e: DiagnosticExplanation): string[] {
  const text = e.example.in === 'command' ? e.example.command : e.example.text.replace(/\t/g, '→   ');
  return text.replace(/\n$/, '').split('\n');
}

function indent(lines: readonly string[]): string[] {
  return lines.map((l) => (l === '' ? '' : `    ${l}`));
}

/** Up to the first full stop that ends a sentence (not the one of `e.g.`). */
function firstSentence(text: string): string {
  const m = /^.*?(?<!\be\.g|\bi\.e)\.(?=\s|$)/s.exec(text);
  return (m ? m[0] : text).replace(/\.$/, '');
}
