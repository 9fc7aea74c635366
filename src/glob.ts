import { trimFolderPath } from './folder-path.js';

/**
 * The wildcard patterns a user types, in the three dialects the README and `--help` document,
 * compiled by one function. Every dialect matches the whole text and ignores case (the servers
 * compare names and paths without regard to case); a character that is not a wildcard of the
 * dialect is literal, regular-expression characters included.
 *
 * | dialect | where | wildcards |
 * | --- | --- | --- |
 * | address glob | `drift.ignore` rules: `address`, `path` | `*` any run of characters, `/` and `.` included |
 * | name mask | `import --name` for tasks and ACLs: the automation API's list masks (spec §4.1) | `x` exact, `x*` starts with, `*x` ends with, `*x*` contains, `*` and `**` everything; only a leading and a trailing `*` are wildcards, an inner one is literal |
 * | folder path glob | `import --name` for folders | `*` any run within one folder name, `**` any run across folders; trailing slashes ignored |
 *
 * The emulator answers the API's name masks with its own server-side code (it imports no product
 * code); `test/glob.test.ts` holds the examples of every dialect.
 */

/** A compiled pattern: literal text and the two kinds of wildcard. */
type GlobPart = { readonly literal: string } | { readonly wildcard: 'any' | 'within-name' };

const ANY: GlobPart = { wildcard: 'any' };

/** `drift.ignore` address and path globs: `*` stands for any run of characters. */
export function matchesAddressGlob(pattern: string, text: string): boolean {
  return compiled('address', pattern, () => pattern.split('*').flatMap((literal, i) => (i === 0 ? [{ literal }] : [ANY, { literal }]))).test(
    text.toLowerCase(),
  );
}

/** The automation API's name masks (spec §4.1). */
export function matchesNameMask(mask: string, name: string): boolean {
  return compiled('name', mask, () => nameMaskParts(mask)).test(name.toLowerCase());
}

/** `/Distribution/*\/Outbound`: `*` within one folder name, `**` across folders. */
export function matchesPathGlob(pattern: string, path: string): boolean {
  return compiled('path', pattern, () => pathGlobParts(pattern)).test(trimFolderPath(path).toLowerCase());
}

/** Whether a folder path glob has wildcards (else it names one folder). */
export function isPathGlob(pattern: string): boolean {
  return pattern.includes('*');
}

/** The folder a path glob's walk starts from: its path up to the first name with a wildcard, spelled as given. */
export function pathGlobRoot(pattern: string): string {
  const names = trimFolderPath(pattern)
    .split('/')
    .filter((p) => p !== '');
  const fixed = names.findIndex((name) => isPathGlob(name));
  return `/${names.slice(0, fixed < 0 ? names.length : fixed).join('/')}`;
}

function nameMaskParts(mask: string): GlobPart[] {
  if (mask === '*' || mask === '**') return [ANY];
  const leading = mask.startsWith('*');
  const trailing = mask.endsWith('*');
  if (leading && trailing && mask.length > 2) return [ANY, { literal: mask.slice(1, -1) }, ANY];
  if (trailing) return [{ literal: mask.slice(0, -1) }, ANY];
  if (leading) return [ANY, { literal: mask.slice(1) }];
  return [{ literal: mask }];
}

function pathGlobParts(pattern: string): GlobPart[] {
  return trimFolderPath(pattern)
    .split(/(\*\*|\*)/)
    .map((part) => (part === '**' ? ANY : part === '*' ? { wildcard: 'within-name' } : { literal: part }));
}

const cache = new Map<string, RegExp>();

/** The pattern of a dialect as a regular expression over lower-cased text, compiled once. */
function compiled(dialect: 'address' | 'name' | 'path', pattern: string, parts: () => GlobPart[]): RegExp {
  const key = `${dialect}:${pattern}`;
  let re = cache.get(key);
  if (re === undefined) {
    re = compileGlob(parts());
    cache.set(key, re);
  }
  return re;
}

function compileGlob(parts: readonly GlobPart[]): RegExp {
  const source = parts.map((part) => {
    if ('literal' in part) return part.literal.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    switch (part.wildcard) {
      case 'any':
        return '.*';
      case 'within-name':
        return '[^/]*';
      default: {
        const never: never = part.wildcard;
        throw new Error(`unknown wildcard ${String(never)}`);
      }
    }
  });
  return new RegExp(`^${source.join('')}$`, 's');
}
