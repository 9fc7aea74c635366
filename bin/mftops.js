#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (npm run build; `prepack` builds it for a package).
import { existsSync } from 'node:fs';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  // A checkout that was never built (or a package made without prepack): say so, not "Cannot find module".
  process.stderr.write(
    'mftops: error: this copy of mftops is not built (no dist/cli/main.js): run npm ci && npm run build in its folder, or install the packed package\n',
  );
  process.exitCode = 1;
} else {
  import(main.href)
    .then((m) => m.main(process.argv))
    .catch((err) => {
      process.stderr.write(`mftops: ${err && err.message ? err.message : String(err)}\n`);
      process.exitCode = 1;
    });
}
