#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (npm run build).
import('../dist/cli/main.js').then((m) => m.main(process.argv)).catch((err) => {
  process.stderr.write(`mftops: ${err && err.message ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
