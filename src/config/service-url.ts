/**
 * The rules for a server's base URL, written once: the configuration loader reports them with the
 * file position, and the clients enforce them again for callers that build options themselves.
 * No dependencies, so the clients can import it without the loader's YAML and ajv.
 */
const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** Why a service URL is refused, or undefined when it is acceptable. */
export function checkServiceUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"${url}" is not a URL (expected e.g. https://mft.example.com)`;
  }
  if (parsed.username || parsed.password) return 'must not contain credentials; use username and password';
  if (parsed.search || parsed.hash) return 'must not contain a query or fragment';
  switch (parsed.protocol) {
    case 'https:':
      return undefined;
    case 'http:':
      return LOOPBACK.test(parsed.hostname)
        ? undefined
        : `plain http:// is refused for ${parsed.hostname}: passwords and tokens would cross the network in clear; use https:// (http is allowed only for loopback)`;
    default:
      return `unsupported scheme ${parsed.protocol} (use https://)`;
  }
}
