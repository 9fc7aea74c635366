import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { exportConfig } from '../../src/emulator/config-xml.js';
import { createState } from '../../src/emulator/seed.js';
import { checkXmlBytes, MAX_DEPTH, XmlChecker, type XmlCheck } from '../../src/snapshot/xml-checker.js';
import { inspectConfigXml } from '../../src/snapshot/index.js';
import { exampleSeed } from '../emulator/helpers.js';

/*
 * The streaming checker stands in for fast-xml-parser when it accepts a document, so it must
 * never accept one that fast-xml-parser (the previous check, inspectConfigXml, kept as the
 * reference) refuses or counts differently; and it must give the same verdict however the bytes
 * are cut into chunks.
 */

/** The reference verdict: what the save recorded before the checker existed (a throw counts as a refusal). */
function reference(text: string): { readonly taskCount: number } | { readonly problem: string } {
  try {
    return inspectConfigXml(text);
  } catch (err) {
    return { problem: `throws: ${(err as Error).message}` };
  }
}

/** Fed in pieces cut at the given offsets. */
function checkInPieces(bytes: Buffer, cuts: readonly number[]): XmlCheck {
  const checker = new XmlChecker();
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    checker.push(bytes.subarray(from, cut));
    from = cut;
  }
  return checker.end();
}

function bytewise(bytes: Buffer): XmlCheck {
  const checker = new XmlChecker();
  for (let i = 0; i < bytes.length; i++) checker.push(bytes.subarray(i, i + 1));
  return checker.end();
}

/** The property every document must have, whatever it is. */
function expectSafe(text: string): XmlCheck {
  const bytes = Buffer.from(text, 'utf8');
  const mine = checkXmlBytes(bytes);
  if (mine.ok) expect(reference(text), text).toEqual({ taskCount: mine.taskCount, contents: mine.contents });
  const byByte = bytewise(bytes);
  expect(byByte.ok, text).toBe(mine.ok);
  if (mine.ok && byByte.ok) expect(byByte).toEqual(mine);
  return mine;
}

function random(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s = (Math.imul(s, 1103515245) + 12345) & 0x7fffffff;
    return s % n;
  };
}

const VALID = [
  '\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<!-- exported --><Config><Tasks><Task ID="1"/></Tasks></Config>\n',
  '<?xml version=\'1.0\' standalone="yes"?><Config V="a &amp; b &lt;&gt;&quot;&apos; &#10;&#x1F600;"><Hosts><SSH Name="x"><Group>G</Group></SSH></Hosts><Tasks>\r\n  <Task Name=\'it"s\'><Info D="&#9;"/></Task>\n  <Task><![CDATA[ </Task> <x> & ]]><Task/></Task>\n  <Other/>\n</Tasks><Tasks><Task/></Tasks></Config>',
  '<Config   a = "1"\n\tb=\'2\' ><Tasks ><Task /><Task></Task ></Tasks></Config >  \n<!-- tail -->\n',
  '<ns:root xmlns:ns="urn:x" x.y-z="é 漢字 😀"><ns:Tasks/><Tasks><Task>text &gt; more</Task><Task><!-- - x - --></Task></Tasks></ns:root>',
  '<Config/>',
  '<Tasks><Task/><Task/></Tasks>',
  '<Config><Tasks><Task/></Tasks><Task/></Config>',
];

describe('XmlChecker', () => {
  it('accepts ordinary exports with the task count fast-xml-parser gives, including the emulator seed export', () => {
    const seed = exportConfig(createState(exampleSeed(), 'current').automation, '2025.1.0');
    for (const text of [...VALID, seed]) {
      const verdict = checkXmlBytes(Buffer.from(text, 'utf8'));
      expect(verdict.ok, text).toBe(true);
      expect(reference(text), text).toEqual(verdict.ok ? { taskCount: verdict.taskCount, contents: verdict.contents } : {});
    }
    expect(checkXmlBytes(Buffer.from(seed))).toMatchObject({ ok: true, root: 'Config' });
  });

  it('gives the same verdict wherever the chunks are cut', () => {
    const text = VALID[1]!;
    const bytes = Buffer.from(text, 'utf8');
    const whole = checkXmlBytes(bytes);
    expect(whole.ok).toBe(true);
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(checkInPieces(bytes, [cut]), `cut at ${cut}`).toEqual(whole);
      expect(checkInPieces(bytes, [cut, Math.min(bytes.length, cut + 3)]), `cuts at ${cut}, ${cut + 3}`).toEqual(whole);
    }
    expect(bytewise(bytes)).toEqual(whole);
    const seed = Buffer.from(exportConfig(createState(exampleSeed(), 'current').automation, '2025.1.0'));
    expect(bytewise(seed)).toEqual(checkXmlBytes(seed));
  });

  it('refuses every truncation of a document, except after the root element is closed', () => {
    const text = VALID[1]!;
    const bytes = Buffer.from(text, 'utf8');
    for (let end = 0; end < bytes.length; end++) {
      const cut = bytes.subarray(0, end).toString('utf8');
      const verdict = expectSafe(cut);
      expect(verdict.ok, `truncated at ${end}`).toBe(false);
    }
  });

  it('refuses what fast-xml-parser refuses, and what it would read differently, at the root and inside it', () => {
    const whole = [
      '',
      '  \n',
      '<Config></Config><Extra/>',
      '<Config/>text',
      'text<Config/>',
      '<![CDATA[x]]><Config/>',
      '<?xml version="1.0"?><?xml version="1.0"?><Config/>',
      ' <?xml version="1.0"?><Config/>',
      '\uFEFF\uFEFF<Config/>',
      '<!DOCTYPE Config><Config/>',
    ];
    // Each also inside a root and a Tasks section, where the checker reads tags its fast way.
    const elements = [
      '<Task>',
      '<Task></Tas>',
      '<Task></Taskk>',
      '<Task></Task',
      '<Task a="1" a="2"/>',
      '<Task a="1" b="2" a="3"></Task>',
      '<Task a="1"b="2"/>',
      '<Task a=1/>',
      '<Task a/>',
      '<Task a=/>',
      '<Task a="1/>',
      '<Task a="<"/>',
      '<Task a="&bogus;"/>',
      '<Task a="&amp"/>',
      '<Task>&#0;</Task>',
      '<Task>& </Task>',
      '<Task>&#x;</Task>',
      '<Task>&#xD800;</Task>',
      '< Task/>',
      '<Task/ >',
      '<1Task/>',
      '<Task><!-- a -- b --></Task>',
      '<Task><![CDATA[ x </Task>',
      '<Task><?pi data?></Task>',
      "<Task><?pi don't?></Task>",
      '<Task><!---> </Task> --></Task>',
      '<constructor/>',
      '<Task toString="x"/>',
      '<__proto__/>',
      `${'<a>'.repeat(MAX_DEPTH + 1)}${'</a>'.repeat(MAX_DEPTH + 1)}`,
    ];
    const inside = (element: string): string => `<Config><Tasks>\n    ${element}\n  </Tasks></Config>\n`;
    for (const text of [...whole, ...elements, ...elements.map(inside)]) {
      const verdict = expectSafe(text);
      expect(verdict.ok, JSON.stringify(text)).toBe(false);
    }
    // The same documents, well-formed, are accepted both ways.
    for (const text of ['<Task a="1" b="2"/>', '<Task a="&amp;" b="&#xD7FF;">&lt;</Task>', `${'<a>'.repeat(MAX_DEPTH - 2)}${'</a>'.repeat(MAX_DEPTH - 2)}`]) {
      expect(expectSafe(text).ok, text).toBe(true);
      expect(expectSafe(inside(text)).ok, text).toBe(true);
    }
  });

  it('never accepts a document fast-xml-parser refuses or counts otherwise: 3000 random mutations of valid ones', () => {
    const rnd = random(20261122);
    const pieces = [
      '<',
      '>',
      '/',
      '"',
      "'",
      '=',
      '&',
      ';',
      '!',
      '-',
      '?',
      '[',
      ']',
      ' ',
      '\n',
      '\r',
      '\t',
      'a',
      'Task',
      'Tasks',
      '#',
      'x',
      '<!--',
      '-->',
      '<![CDATA[',
      ']]>',
      '</',
      '/>',
      '&amp;',
      '&#10;',
      '\uFEFF',
      'é',
      '<Task/>',
      '</Task>',
      '<Task>',
      'constructor',
      '<?xml version="1.0"?>',
      '<!DOCTYPE x>',
    ];
    let accepted = 0;
    let refused = 0;
    for (let n = 0; n < 3000; n++) {
      let text = VALID[rnd(VALID.length)]!;
      for (let m = 1 + rnd(3); m > 0; m--) {
        const at = rnd(text.length + 1);
        const piece = pieces[rnd(pieces.length)]!;
        const op = rnd(3);
        text =
          op === 0
            ? text.slice(0, at) + piece + text.slice(at)
            : op === 1
              ? text.slice(0, at) + text.slice(at + 1 + rnd(4))
              : text.slice(0, at) + piece + text.slice(at + 1);
      }
      if (expectSafe(text).ok) accepted++;
      else refused++;
      // Where fast-xml-parser's validator refuses, the checker must have refused too (checked by expectSafe).
      if (XMLValidator.validate(text.replace(/^\uFEFF/, '')) !== true) expect(checkXmlBytes(Buffer.from(text)).ok).toBe(false);
    }
    // Both kinds occur: the mutations are not all fatal, and not all harmless.
    expect(accepted).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(300);
  });
});

describe('XmlChecker: what apply checks the export against (issue 23 findings 4 and 9)', () => {
  const EXPORT =
    '<Config><ACLs><ACL ACLID="7" ResourceGroupName="Fin &amp; Ops" UserGroupName="Auditors"><Permissions TaskRun="1"/></ACL><ACL ID="8"/></ACLs><Tasks>\n  <Task ID="12" Name="Pay &quot;roll&quot; &#233;"><Source ID="1" Name="not the task"/></Task>\n  <Task Name="no id"/>\n</Tasks><Tasks><Task ID="99"/></Tasks></Config>';

  it('keeps the ids and names of the first Tasks and ACLs sections, references decoded, however the chunks are cut', () => {
    const whole = checkXmlBytes(Buffer.from(EXPORT));
    expect(whole).toMatchObject({
      ok: true,
      taskCount: 2,
      contents: { tasks: [{ id: '12', name: 'Pay "roll" é' }, { name: 'no id' }], acls: [{ id: '7', name: 'Fin & Ops / Auditors' }, { id: '8' }] },
    });
    expect(bytewise(Buffer.from(EXPORT))).toEqual(whole);
    const bytes = Buffer.from(EXPORT);
    for (let cut = 0; cut <= bytes.length; cut++) expect(checkInPieces(bytes, [cut]), `cut at ${cut}`).toEqual(whole);
    // fast-xml-parser, when the checker cannot vouch for a document, reads the same.
    expect(reference(EXPORT)).toEqual({ taskCount: 2, contents: (whole as { contents: unknown }).contents });
  });

  it('refuses a DOCTYPE or entity declaration outright (never handed to fast-xml-parser), and so does the fallback parse', () => {
    const bomb = `<?xml version="1.0"?>\n<!DOCTYPE Config [\n <!ENTITY lol "lol">\n <!ENTITY lol1 "&lol;&lol;">\n]>\n<Config><Tasks><Task ID="1" Name="&lol1;"/></Tasks></Config>`;
    const external = '<!DOCTYPE Config [<!ENTITY x SYSTEM "file:///etc/passwd">]><Config><Tasks><Task Name="&x;"/></Tasks></Config>';
    for (const text of [bomb, external, '<!DOCTYPE Config><Config/>']) {
      expect(checkXmlBytes(Buffer.from(text)), text).toMatchObject({ ok: false, declaration: true });
      expect(reference(text), text).toEqual({
        problem: 'contains a DOCTYPE/entity declaration, which mftops refuses (server answer, not an mftops bug)',
        declaration: true,
      });
    }
    // Behind a processing instruction the checker stops first; the fallback still refuses it.
    expect(reference(`<?pi x?>${external}`)).toMatchObject({ declaration: true });
    // In a comment or CDATA it is only text.
    expect(reference('<!-- <!DOCTYPE x> --><Config><Tasks><Task><![CDATA[<!DOCTYPE html>]]></Task></Tasks></Config>')).toMatchObject({ taskCount: 1 });
  });
});
