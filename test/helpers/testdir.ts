import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { onTestFinished } from 'vitest';

/** A temporary folder holding the given files (path → content), removed when the test ends. */
export function testdir(files: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(join(tmpdir(), 'mftops-test-'));
  for (const [path, content] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
