import { describe, expect, it } from 'vitest';
import { clearAcknowledgements } from '../../src/adopt/clear-acknowledgements.js';
import { editManifestText } from '../../src/adopt/edit-manifest-text.js';
import type { DriftIgnoreRule } from '../../src/config/model.js';
import { ruleCovers } from '../../src/drift/acknowledge.js';

const CONFIG = [
  'environments:',
  '  prod:',
  '    prune: []',
  '    drift:',
  '      ignore:',
  '        - { address: Task/Payroll to bank, path: Info.Description }  # the 2 a.m. fix',
  '        - address: Task/Acme*',
  '        - { address: ResourceGroupAcl/Partners/Partner Managers }',
  '        - { address: FolderPermissions//Distribution/Acme, path: entries.user:carol }',
  '        - { address: Task/Payroll to bank, path: Schedules }',
  '  # staging keeps its own',
  '  staging:',
  '    drift: { ignore: [{ address: Task/Payroll to bank }] }',
  '',
].join('\n');

const RULES: DriftIgnoreRule[] = [
  { address: 'Task/Payroll to bank', path: 'Info.Description', where: 'mftops.yaml:6:11' },
  { address: 'Task/Acme*', where: 'mftops.yaml:7:11' },
  { address: 'ResourceGroupAcl/Partners/Partner Managers', where: 'mftops.yaml:8:11' },
  { address: 'FolderPermissions//Distribution/Acme', path: 'entries.user:carol', where: 'mftops.yaml:9:11' },
  { address: 'Task/Payroll to bank', path: 'Schedules', where: 'mftops.yaml:10:11' },
];

function cleared(adopted: Parameters<typeof clearAcknowledgements>[1]): { notes: ReturnType<typeof clearAcknowledgements>; text: string } {
  const notes = clearAcknowledgements(RULES, adopted, 'prod', CONFIG, ruleCovers);
  const edited = editManifestText(CONFIG, notes.edits);
  if (!edited.ok) throw new Error(edited.problem);
  return { notes, text: edited.text };
}

describe('clearAcknowledgements', () => {
  it('removes the rule that names an adopted object and covers the adopted field; the rule for another field stays, and so do the comments', () => {
    const { notes, text } = cleared([{ address: 'Task/Payroll to bank', addresses: ['Task/Payroll to bank'], paths: ['Info.Description'] }]);
    expect(notes.cleared).toEqual([{ object: 'Task/Payroll to bank', rule: 'Task/Payroll to bank Info.Description', where: 'mftops.yaml:6:11' }]);
    expect(notes.kept).toEqual([]);
    expect(text).toBe(CONFIG.replace('        - { address: Task/Payroll to bank, path: Info.Description }  # the 2 a.m. fix\n', ''));
  });

  it('keeps a pattern rule that covers an adopted object, saying so', () => {
    const { notes, text } = cleared([{ address: 'Task/Acme outbound', addresses: ['Task/Acme outbound'], paths: ['Info.Description'] }]);
    expect(notes.cleared).toEqual([]);
    expect(notes.kept).toEqual([{ object: 'Task/Acme outbound', rule: 'Task/Acme*', where: 'mftops.yaml:7:11' }]);
    expect(text).toBe(CONFIG);
  });

  it('matches an ACL by its alias and a folder written with a doubled slash; an object removed or created whole spends every rule that names it', () => {
    const { notes } = cleared([
      {
        address: 'ResourceGroupAcl/partner-managers',
        addresses: ['ResourceGroupAcl/partner-managers', 'ResourceGroupAcl/Partners/Partner Managers'],
        paths: ['Permissions.TaskRun'],
      },
      { address: 'FolderPermissions/Distribution/Acme', addresses: ['FolderPermissions/Distribution/Acme'], paths: ['entries.user:carol'] },
      { address: 'Task/Payroll to bank', addresses: ['Task/Payroll to bank'], paths: 'whole' },
    ]);
    expect(notes.cleared.map((c) => c.where)).toEqual(['mftops.yaml:6:11', 'mftops.yaml:8:11', 'mftops.yaml:9:11', 'mftops.yaml:10:11']);
  });

  it('keeps a whole-object rule (or one covering a field by its parent) when a difference it covers was refused, saying so', () => {
    const rules: DriftIgnoreRule[] = [
      { address: 'Task/Nightly', where: 'mftops.yaml:3:11' },
      { address: 'Task/Nightly', path: 'steps', where: 'mftops.yaml:4:11' },
      { address: 'Task/Nightly', path: 'Info.*', where: 'mftops.yaml:5:11' },
    ];
    const notes = clearAcknowledgements(
      rules,
      [{ address: 'Task/Nightly', addresses: ['Task/Nightly'], paths: ['Info.Description', 'steps[1].Name'], refused: ['steps[0].Source.Path'] }],
      'prod',
      CONFIG,
      ruleCovers,
    );
    expect(notes.cleared.map((c) => c.where)).toEqual(['mftops.yaml:5:11']);
    expect(notes.kept).toEqual([
      { object: 'Task/Nightly', rule: 'Task/Nightly', where: 'mftops.yaml:3:11', notAdopted: ['steps[0].Source.Path'] },
      { object: 'Task/Nightly', rule: 'Task/Nightly steps', where: 'mftops.yaml:4:11', notAdopted: ['steps[0].Source.Path'] },
    ]);
    expect(notes.edits).toEqual([{ op: 'delete', document: 0, path: ['environments', 'prod', 'drift', 'ignore', 2] }]);
  });

  it('does not remove a rule for a field that was not adopted (refused, or not drifted)', () => {
    const { notes } = cleared([{ address: 'Task/Payroll to bank', addresses: ['Task/Payroll to bank'], paths: ['steps[0].Source.Path'] }]);
    expect(notes.cleared).toEqual([]);
    expect(notes.edits).toEqual([]);
  });

  it("when every rule of the environment is spent, its drift settings go (an empty ignore list would not load); another environment's stay", () => {
    const only: DriftIgnoreRule[] = [RULES[0]!];
    const text = CONFIG.replace(/ {8}- address: Task\/Acme\*\n[^]*?(?= {2}# staging)/, '');
    const notes = clearAcknowledgements(
      only,
      [{ address: 'Task/Payroll to bank', addresses: ['Task/Payroll to bank'], paths: ['Info.Description'] }],
      'prod',
      text,
      ruleCovers,
    );
    const edited = editManifestText(text, notes.edits);
    expect(edited).toEqual({ ok: true, text: text.replace(/ {4}drift:\n {6}ignore:\n.*\n/, '') });
    expect(edited.ok && edited.text).toContain('staging:\n    drift: { ignore: [{ address: Task/Payroll to bank }] }');
  });
});
