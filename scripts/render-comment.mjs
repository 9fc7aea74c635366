#!/usr/bin/env node
/**
 * Dev check: a PR comment's markdown as a reviewer sees it on GitHub. Renders FILE.md with a GFM
 * renderer (marked) and GitHub's stylesheet (github-markdown-css, light), GitHub's alerts
 * (`> [!WARNING]`) included, and screenshots it with headless Chromium; prints the page's height
 * and, for each heading or alert title, the pixel offset it starts at.
 *
 *   node scripts/render-comment.mjs FILE.md OUT.png [--height 1000] [--open] [--chromium /usr/bin/chromium]
 *
 * Not part of the package (devDependencies only).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { marked } from 'marked';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const [value] = args.splice(i, 2).slice(1);
  return value;
};
const height = Number(opt('--height', '1000'));
// `--open`: every <details> expanded, as a reviewer who clicks them all sees it.
const open = args.includes('--open') ? (args.splice(args.indexOf('--open'), 1), true) : false;
const chromium = opt('--chromium', '/usr/bin/chromium');
const [input, output] = args;
if (input === undefined || output === undefined) {
  console.error('usage: node scripts/render-comment.mjs FILE.md OUT.png [--height N] [--chromium PATH]');
  process.exit(1);
}

const require = createRequire(import.meta.url);
const css = readFileSync(require.resolve('github-markdown-css/github-markdown-light.css'), 'utf8');
const TITLES = { NOTE: 'Note', TIP: 'Tip', IMPORTANT: 'Important', WARNING: 'Warning', CAUTION: 'Caution' };
// GitHub's alerts: a blockquote whose first line is `[!TYPE]`.
const alerts = (html) =>
  html.replace(
    /<blockquote>\s*<p>\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s*/g,
    (_, type) => `<blockquote class="markdown-alert markdown-alert-${type.toLowerCase()}"><p class="markdown-alert-title">${TITLES[type]}</p><p>`,
  );
const html0 = alerts(marked.parse(readFileSync(input, 'utf8'), { gfm: true }));
const body = open ? html0.replace(/<details>/g, '<details open>') : html0;
const page = `<!doctype html><html><head><meta charset="utf-8"><style>${css}
body { margin: 0; background: #fff; }
.markdown-body { box-sizing: border-box; max-width: 900px; padding: 16px 24px; }
.markdown-alert { padding: 0.5rem 1rem; margin-bottom: 16px; color: inherit; border-left: .25em solid #d1d9e0; }
.markdown-alert-title { font-weight: 500; }
.markdown-alert-warning { border-left-color: #9a6700; } .markdown-alert-warning .markdown-alert-title { color: #9a6700; }
.markdown-alert-caution { border-left-color: #d1242f; } .markdown-alert-caution .markdown-alert-title { color: #d1242f; }
.markdown-alert-note { border-left-color: #0969da; } .markdown-alert-note .markdown-alert-title { color: #0969da; }
</style></head><body><article class="markdown-body">${body}</article>
<script>
  const marks = [...document.querySelectorAll('h2, h3, h4, .markdown-alert-title, summary')].slice(0, 40).map((e) => Math.round(e.getBoundingClientRect().top) + ' ' + e.textContent.trim().slice(0, 70));
  document.title = document.documentElement.scrollHeight + '|' + marks.join('|');
</script></body></html>`;

const dir = mkdtempSync(join(tmpdir(), 'render-comment-'));
try {
  const html = join(dir, 'comment.html');
  writeFileSync(html, page);
  const flags = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--user-data-dir=${join(dir, 'profile')}`,
  ];
  execFileSync(chromium, [...flags, `--window-size=900,${height}`, `--screenshot=${resolve(output)}`, html], { stdio: 'ignore' });
  // The page's height and where its sections start, from the title the page's script set.
  const dumped = execFileSync(chromium, [...flags, '--window-size=900,1000', '--dump-dom', html], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const title = /<title>([^<]*)<\/title>/.exec(dumped)?.[1] ?? '';
  const [total, ...marks] = title.split('|');
  console.log(`${input}: ${readFileSync(input, 'utf8').length} characters, ${total} px high`);
  for (const m of marks) console.log(`  ${m}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
