import { describe, expect, it } from 'vitest';
import { completionScript } from '../../src/app/completion.js';
import type { CompletionCommand } from '../../src/render/completion.js';
import { ConfigError } from '../../src/errors.js';

const PROGRAM: CompletionCommand = {
  name: 'mftops',
  description: 'x',
  options: [{ flags: ['--format'], description: 'output format', takesValue: true, values: ['text', 'json'] }],
  arguments: 'none',
  commands: [
    {
      name: 'plan',
      description: 'show what would change',
      options: [{ flags: ['--out'], description: 'save the plan', takesValue: true }],
      arguments: 'files',
      commands: [],
    },
  ],
};

describe('completionScript', () => {
  it('writes a script for bash, zsh and fish', () => {
    expect(completionScript({ shell: 'bash', program: PROGRAM })).toContain('complete -F _mftops mftops');
    expect(completionScript({ shell: 'zsh', program: PROGRAM })).toMatch(/^#compdef mftops\n/);
    expect(completionScript({ shell: 'fish', program: PROGRAM })).toContain(`complete -c mftops -n '__mftops_at "plan"' -l 'out' -r -F -d 'save the plan'`);
  });

  it('refuses another shell, naming those it knows', () => {
    expect(() => completionScript({ shell: 'tcsh', program: PROGRAM })).toThrow(
      new ConfigError('completion: no script for the shell "tcsh"; one of bash, zsh, fish'),
    );
  });
});
