const ENTITY = /&(lt|gt|amp|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);/g;
const NAMED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/**
 * XML's predefined and numeric entities decoded once (fast-xml-parser runs with `processEntities:
 * false` so values stay exact). A numeric entity beyond Unicode (`&#1114112;`) is left as written
 * rather than thrown on: the text is someone else's export, and a reader must not crash on it.
 */
export function decodeXmlEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(ENTITY, (whole, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[name] ?? whole;
  });
}
