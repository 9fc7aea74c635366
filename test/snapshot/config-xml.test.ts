import { describe, expect, it } from 'vitest';
import { checkConfigXml, inspectConfigXml, parseConfigXml, readSnapshotKey } from '../../src/snapshot/index.js';

describe('checkConfigXml', () => {
  it('accepts one root element with a declaration and comments', () => {
    expect(checkConfigXml('\uFEFF<?xml version="1.0"?>\n<!-- exported -->\n<Config><Tasks/></Config>\n')).toBeUndefined();
  });

  it('says where a document is broken, and refuses several roots or none', () => {
    expect(checkConfigXml('<Config>\n  <Tasks>\n</Config>')).toMatch(/line 3/);
    expect(checkConfigXml('<Config/><Extra/>')).toBe('2 root elements (Config, Extra); expected one');
    expect(checkConfigXml('  \n')).toBe('the document is empty');
  });

  it('never quotes the content in its message', () => {
    const message = checkConfigXml('<Config><Host DefPassword="hunter2-SECRET"></Config>');
    expect(message).toBeDefined();
    expect(message).not.toContain('hunter2');
  });
});

describe('inspectConfigXml and parseConfigXml', () => {
  const xml = '<Config><Hosts><Task Name="not a task"/></Hosts><Tasks><Task Name="a"/><Task Name="b"><Task/></Task><Other/></Tasks></Config>';

  it('counts only the Task elements of the Tasks section', () => {
    expect(inspectConfigXml(xml)).toEqual({ taskCount: 2, contents: { tasks: [{ name: 'a' }, { name: 'b' }], acls: [] } });
    expect(inspectConfigXml('<Config><Hosts/></Config>')).toEqual({ taskCount: 0, contents: { tasks: [], acls: [] } });
  });

  it('keeps values as written: no number guessing, entities decoded once, order kept', () => {
    const root = parseConfigXml('<Config><T Port="007" Flag="true" Text="a &amp;#10; b&#10;c &lt;&quot;&gt;"><B>x</B><A/><B>y</B></T></Config>');
    const t = root.children[0]!;
    expect(t.attrs).toEqual({ Port: '007', Flag: 'true', Text: 'a &#10; b\nc <">' });
    expect(t.children.map((c) => `${c.name}:${c.text}`)).toEqual(['B:x', 'A:', 'B:y']);
  });
});

describe('readSnapshotKey', () => {
  it('reads 32 bytes as hex or base64, and nothing when unset', () => {
    const bytes = Buffer.alloc(32, 0xab);
    const hex = readSnapshotKey({ MFTOPS_SNAPSHOT_KEY: bytes.toString('hex') });
    const b64 = readSnapshotKey({ MFTOPS_SNAPSHOT_KEY: ` ${bytes.toString('base64')}\n` });
    expect(hex?.bytes.equals(bytes)).toBe(true);
    expect(b64?.bytes.equals(bytes)).toBe(true);
    expect(hex?.check).toBe(b64?.check);
    expect(readSnapshotKey({})).toBeUndefined();
    expect(readSnapshotKey({ MFTOPS_SNAPSHOT_KEY: '' })).toBeUndefined();
  });

  it('refuses other lengths and alphabets with a message that does not show the key', () => {
    expect(() => readSnapshotKey({ MFTOPS_SNAPSHOT_KEY: Buffer.alloc(31).toString('hex') })).toThrow(
      'MFTOPS_SNAPSHOT_KEY must be 32 bytes (64 hex digits or 44 base64 characters); it decodes to 31 bytes',
    );
    expect(() => readSnapshotKey({ MFTOPS_SNAPSHOT_KEY: 'not a key!' })).toThrow(/^MFTOPS_SNAPSHOT_KEY is neither hex nor base64/);
  });
});
