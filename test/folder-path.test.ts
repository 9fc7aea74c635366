import { describe, expect, it } from 'vitest';
import { folderPathProblem } from '../src/folder-path.js';

describe('folderPathProblem', () => {
  it('accepts absolute paths of real names, the root, and names with dots, spaces and other punctuation', () => {
    for (const ok of ['/', '/Distribution', '/Distribution/Acme/Outbound', '/a/.hidden', '/a/v1.2', '/a/...', '/Acme Partners/In (EU)', '/a/b-c_d#e'])
      expect(folderPathProblem(ok), ok).toBeUndefined();
  });

  it('refuses `.` and `..`, empty names, control characters and the forbidden characters, saying which', () => {
    expect(folderPathProblem('/Distribution/..')).toMatch(/folder named `\.\.`/);
    expect(folderPathProblem('/Distribution/../Evil')).toMatch(/folder named `\.\.`/);
    expect(folderPathProblem('/./a')).toMatch(/folder named `\.`/);
    expect(folderPathProblem('/a//b')).toMatch(/empty name/);
    expect(folderPathProblem('/a/')).toMatch(/empty name/);
    expect(folderPathProblem('a/b')).toMatch(/start with \//);
    expect(folderPathProblem('/a\u0000b')).toMatch(/control character \(U\+0000\)/);
    expect(folderPathProblem('/a\u007fb')).toMatch(/U\+007F/);
    for (const c of ['\\', ':', '*', '?', '"', '<', '>', '|']) expect(folderPathProblem(`/a/x${c}y`), c).toContain(`holds \`${c}\``);
  });
});
