import { VERSION } from '../version.js';

/** The User-Agent every request carries: `mftops/<version>`. */
export function readUserAgent(): string {
  return `mftops/${VERSION}`;
}
