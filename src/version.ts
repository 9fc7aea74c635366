import { readFileSync } from 'node:fs';

/**
 * The package version, read once from package.json (one folder up from both src/ and dist/);
 * `0.0.0` when it cannot be read, e.g. inside a bundle that does not carry it.
 */
export const VERSION: string = readVersion();

function readVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name?: unknown; version?: unknown };
    return pkg.name === 'mftops' && typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}
