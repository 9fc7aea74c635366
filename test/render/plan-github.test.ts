import { describe, expect, it } from 'vitest';
import { assembleDrift } from '../../src/drift/assemble-drift.js';
import { assemblePlan } from '../../src/plan/assemble-plan.js';
import type { Change } from '../../src/plan/model.js';
import { renderDriftGithub } from '../../src/render/drift-github.js';
import { renderDriftMarkdown } from '../../src/render/drift-markdown.js';
import { ANNOTATION_MESSAGE_MAX, renderPlanGithub } from '../../src/render/plan-github.js';
import { renderPlanMarkdown } from '../../src/render/plan-markdown.js';
import { expectGolden, loadFixturePlan } from '../fixtures/plans/load.js';

/** The workflow commands at the start of a `--format github` output, and the text after them. */
function split(out: string): { commands: string[]; rest: string } {
  const lines = out.split('\n');
  const first = lines.findIndex((l) => !l.startsWith('::'));
  return { commands: lines.slice(0, first), rest: lines.slice(first).join('\n') };
}

/** `level`, the properties and the (unescaped) message of one workflow command. */
function parse(command: string): { level: string; props: Record<string, string>; message: string } {
  const m = /^::(\w+) ([^:]*)::(.*)$/.exec(command);
  if (!m) throw new Error(`not a workflow command: ${command}`);
  const props = Object.fromEntries(m[2]!.split(',').map((p) => p.split('=', 2) as [string, string]));
  return { level: m[1]!, props, message: decodeURIComponent(m[3]!) };
}

describe('renderPlanGithub: --format github of a plan', () => {
  const plan = loadFixturePlan('every-action.json');

  it('annotates every change but the no-ops at its manifest line: notices for creates and updates, warnings for replace, delete and blocked', () => {
    const { commands } = split(renderPlanGithub(plan));
    const listed = plan.changes.filter((c) => c.action !== 'no-op');
    expect(commands.map((c) => [parse(c).level, parse(c).props['title']])).toEqual(
      listed.map((c) => [c.action === 'create' || c.action === 'update' ? 'notice' : 'warning', `${c.address} ${phrase(c.action)}`.replace(/,/g, '%2C')]),
    );
    for (const [i, c] of listed.entries()) {
      const { props } = parse(commands[i]!);
      if (c.source === undefined) expect(props['file']).toBeUndefined();
      else expect([props['file'], props['line'], props['col']]).toEqual([c.source.file, String(c.source.line), String(c.source.col)]);
    }
    expect(listed.some((c) => c.source === undefined)).toBe(true);
  });

  it('says in each annotation what changes, as the text plan does, and secrets only as (sensitive)', () => {
    const { commands } = split(renderPlanGithub(plan));
    const payroll = commands.map(parse).find((c) => c.props['title'] === 'Task/Payroll to bank will be updated')!;
    expect(payroll.message.split('\n')).toContain('~ Parameters.ApiKey: (sensitive)');
    const blocked = commands.map(parse).find((c) => c.props['title'] === 'Task/Legacy EDI router is blocked')!;
    expect(blocked.message.split('\n')[0]).toBe('# advanced (TT=COS) tasks cannot be changed through the API');
  });

  it('then prints the markdown plan, unchanged, for the log or the job summary', () => {
    expect(split(renderPlanGithub(plan)).rest).toBe(renderPlanMarkdown(plan));
  });

  it('matches its golden file', () => {
    expectGolden(renderPlanGithub(plan), 'every-action.github.txt');
  });

  it('cuts a long message and keeps each annotation one workflow command', () => {
    const long: Change = {
      address: 'Task/Long',
      kind: 'Task',
      name: 'Long',
      service: 'automation',
      action: 'update',
      liveId: '1',
      fields: [{ path: 'Info.Notes', before: 'a', after: `x\n${'y'.repeat(2 * ANNOTATION_MESSAGE_MAX)}` }],
      source: { file: 'm.yaml', line: 3, col: 1 },
    };
    const out = renderPlanGithub(
      assemblePlan({ toolVersion: 't', createdAt: '2026-11-22T12:00:00.000Z', environment: 'prod', servers: {}, manifestDigest: 'sha256:0' }, [long], false),
    );
    const { commands } = split(out);
    expect(commands).toHaveLength(1);
    expect(parse(commands[0]!).message.length).toBeLessThan(ANNOTATION_MESSAGE_MAX + 100);
    expect(parse(commands[0]!).message).toMatch(/… \(cut: the markdown below has the rest\)$/);
  });
});

describe('renderPlanGithub: policy violations', () => {
  const plan = loadFixturePlan('every-action.json');
  const withPolicy = {
    ...plan,
    policy: {
      policies: 2,
      violations: [
        {
          policy: 'no-partner-admin',
          severity: 'deny' as const,
          outcome: 'violated' as const,
          message: 'partner groups must never administer a folder: 100% sure, no\nexceptions',
          address: 'FolderPermissions/Distribution/Acme, Inbound',
          source: { file: 'manifests/folders.yaml', line: 12, col: 1 },
          expressionSource: { file: 'policies/p.yaml', line: 8, col: 19 },
        },
        {
          policy: 'describe:tasks',
          severity: 'warn' as const,
          outcome: 'error' as const,
          message: 'cannot evaluate: no such key: Info',
          address: 'Task/Nightly cleanup',
          expressionSource: { file: 'policies/p,2.yaml', line: 21, col: 19 },
        },
      ],
    },
  };

  it('annotates each violation first: an error per deny at the object, a warning per warn, at the expression when the object has no manifest; escaped', () => {
    const { commands } = split(renderPlanGithub(withPolicy));
    expect(commands.slice(0, 2)).toEqual([
      '::error file=manifests/folders.yaml,line=12,col=1,title=policy no-partner-admin::partner groups must never administer a folder: 100%25 sure, no%0Aexceptions (FolderPermissions/Distribution/Acme, Inbound)',
      '::warning file=policies/p%2C2.yaml,line=21,col=19,title=policy describe%3Atasks::cannot evaluate: no such key: Info (Task/Nightly cleanup)',
    ]);
    // Then the change annotations and the markdown, as without policies (the markdown has the call-out).
    expect(commands.slice(2)).toEqual(split(renderPlanGithub(plan)).commands);
    expect(split(renderPlanGithub(withPolicy)).rest).toBe(renderPlanMarkdown(withPolicy));
  });
});

describe('renderDriftGithub: --format github of a drift report', () => {
  const NOW = new Date('2026-11-22T12:00:00Z');
  const changes: Change[] = [
    {
      address: 'Task/Nightly',
      kind: 'Task',
      name: 'Nightly',
      service: 'automation',
      action: 'update',
      liveId: '1',
      fields: [{ path: 'Active', before: 0, after: 1 }],
      source: { file: 'manifests/tasks.yaml', line: 12, col: 1 },
    },
    {
      address: 'Task/Quiet',
      kind: 'Task',
      name: 'Quiet',
      service: 'automation',
      action: 'no-op',
      liveId: '2',
      fields: [],
      source: { file: 'manifests/tasks.yaml', line: 30, col: 1 },
    },
  ];
  const report = assembleDrift({
    plan: assemblePlan({ toolVersion: 't', createdAt: NOW.toISOString(), environment: 'prod', servers: {}, manifestDigest: 'sha256:0' }, changes, false),
    live: {},
    prune: [],
    ignore: [],
    now: NOW,
  });

  it('puts one warning per drifted object on its manifest line, with the differences read git → server, then the markdown report', () => {
    const out = renderDriftGithub(report);
    const { commands, rest } = split(out);
    expect(commands).toHaveLength(1);
    const only = parse(commands[0]!);
    expect(only.level).toBe('warning');
    expect(only.props).toEqual({ file: 'manifests/tasks.yaml', line: '12', col: '1', title: 'Task/Nightly differs from its manifest' });
    expect(only.message).toContain('Active: 1 → 0');
    expect(rest).toBe(renderDriftMarkdown(report));
  });
});

function phrase(action: Change['action']): string {
  return {
    create: 'will be created',
    update: 'will be updated',
    replace: 'must be replaced',
    delete: 'will be deleted',
    blocked: 'is blocked',
    'no-op': 'is unchanged',
  }[action];
}
