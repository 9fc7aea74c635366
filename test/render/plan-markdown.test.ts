import { describe, expect, it } from 'vitest';
import type { AccessChange, Change, Plan } from '../../src/plan/model.js';
import { renderPlanMarkdown } from '../../src/render/plan-markdown.js';
import { generatePlan } from '../fixtures/plans/generate.js';
import type { GeneratedPlan } from '../fixtures/plans/generate.js';
import { FOLDER_RENAME } from '../fixtures/plans/folder-rename.js';
import { loadFixturePlan } from '../fixtures/plans/load.js';

const plan = loadFixturePlan('every-action.json');
const md = renderPlanMarkdown(plan, { artifactHint: 'the plan artifact' });

function planWith(changes: readonly Change[], extra: Partial<Plan> = {}): Plan {
  const summary = { create: 0, update: 0, replace: 0, delete: 0, 'no-op': 0, blocked: 0 };
  for (const c of changes) summary[c.action]++;
  return { ...plan, changes, summary, ...extra };
}

/** The summary table rows the generator's own counts call for, written out independently. */
function expectedTable(g: GeneratedPlan): string[] {
  const cols = ['create', 'update', 'replace', 'delete', 'blocked', 'no-op'] as const;
  const fmt = (n: number) => n.toLocaleString('en-US');
  const rows = (['Task', 'ResourceGroupAcl', 'FolderPermissions'] as const)
    .filter((k) => cols.some((c) => g.counts[k][c] > 0))
    .map((k) => `| ${k} | ${cols.map((c) => fmt(g.counts[k][c])).join(' | ')} |`);
  const total = cols.map((c) => `**${fmt(g.plan.changes.filter((ch) => ch.action === c).length)}**`);
  return [
    '| Kind | Create | Update | Replace | Delete | Blocked | Unchanged |',
    '|:--|--:|--:|--:|--:|--:|--:|',
    ...rows,
    `| **Total** | ${total.join(' | ')} |`,
  ];
}

/** Cells per row (pipes not escaped with a backslash), for each table: runs of lines starting with `|`. */
function tableShapes(markdown: string): number[][] {
  const tables: number[][] = [];
  let current: number[] | undefined;
  for (const l of markdown.split('\n')) {
    if (!l.startsWith('|')) {
      current = undefined;
      continue;
    }
    if (current === undefined) tables.push((current = []));
    current.push(l.replace(/\\\|/g, '').split('|').length);
  }
  return tables;
}

/** The markdown with fenced code blocks removed: what GitHub interprets as markup. */
function outsideCode(markdown: string): string {
  const out: string[] = [];
  let open: string | undefined;
  for (const l of markdown.split('\n')) {
    if (open === undefined) {
      const m = /^(`{3,})/.exec(l);
      if (m) open = m[1];
      else out.push(l);
    } else if (l === open) open = undefined;
  }
  return out.join('\n');
}

describe('renderPlanMarkdown on the every-action fixture', () => {
  it('starts with the title and the verdict, then the counts; the table of counts heads the list of changed objects', () => {
    const lines = md.split('\n');
    expect(lines[0]).toBe('## mftops plan: prod');
    expect(lines.slice(2, 8)).toEqual([
      '> [!CAUTION]',
      '> **Blocked:** 1 change and 1 folder ACL entry the API cannot make, listed below; a person has to.',
      '>',
      '> **Needs `--allow-delete`:** it deletes 1 object, listed below.',
      '>',
      '> **Needs `--allow-replace`:** it replaces 1 object by a delete and a create, listed below.',
    ]);
    expect(lines[9]).toBe('**Plan:** 2 to create, 4 to update, 1 to replace, 1 to delete, 1 blocked.');
    const table = lines.indexOf('### Changed objects') + 2;
    expect(lines.slice(table, table + 6)).toEqual([
      '| Kind | Create | Update | Replace | Delete | Blocked | Unchanged |',
      '|:--|--:|--:|--:|--:|--:|--:|',
      '| Task | 1 | 2 | 1 | 0 | 1 | 2 |',
      '| ResourceGroupAcl | 0 | 1 | 0 | 0 | 0 | 1 |',
      '| FolderPermissions | 1 | 1 | 0 | 1 | 0 | 1 |',
      '| **Total** | **2** | **4** | **1** | **1** | **1** | **4** |',
    ]);
  });

  it('names every changed object under the table, destructive first, one line per action and kind', () => {
    const list = md.slice(md.indexOf('| **Total** |'), md.indexOf('### Details'));
    expect(list.split('\n').filter((l) => l.startsWith('- '))).toEqual([
      '- <code>-</code> <b>FolderPermissions</b>, 1 to delete: `/Distribution/Initech/Inbound`',
      '- <code>-/+</code> <b>Task</b>, 1 to replace: `Globex outbound`',
      '- <code>!</code> <b>Task</b>, 1 blocked: `Legacy EDI router`',
      '- <code>+</code> <b>Task</b>, 1 to create: `Globex inbound`',
      '- <code>+</code> <b>FolderPermissions</b>, 1 to create: `/Distribution/Globex/Reports`',
      '- <code>~</code> <b>Task</b>, 2 to update: `Payroll to bank`, `Bank statements in` (was `Bank statements import`)',
      '- <code>~</code> <b>ResourceGroupAcl</b>, 1 to update: `Finance/Finance Operators`',
      '- <code>~</code> <b>FolderPermissions</b>, 1 to update: `/Distribution/Acme/Outbound`',
    ]);
  });

  it('calls out destructive changes, then blocked ones, before the list of objects and any details', () => {
    const warning = md.indexOf('> [!WARNING]\n> **2 destructive changes:**');
    const caution = md.indexOf('> [!CAUTION]\n> **1 change and 1 folder ACL entry blocked:**');
    const details = md.indexOf('### Changed objects');
    expect(md.indexOf('**Plan:**')).toBeLessThan(warning);
    expect(warning).toBeLessThan(caution);
    expect(caution).toBeLessThan(details);
    expect(details).toBeLessThan(md.indexOf('<details>'));
    const warningBlock = md.slice(warning, caution);
    expect(warningBlock).toContain('<b>Task/Globex outbound</b> replace: &#96;Group&#96; cannot change after creation: the task is deleted and created again');
    expect(warningBlock).toContain(
      '<b>FolderPermissions/Distribution/Initech/Inbound</b> delete: no manifest manages this folder in scope, and FolderPermissions are pruned',
    );
    expect(warningBlock).toContain('`--allow-delete`');
    const cautionBlock = md.slice(caution, details);
    expect(cautionBlock).toContain('<b>Task/Legacy EDI router</b> blocked: advanced (TT=COS) tasks cannot be changed through the API');
    expect(cautionBlock).toContain(
      '<code>FolderPermissions/Distribution/Acme/Outbound</code>, user <code>carol</code>: the entry of user carol cannot be changed on the server (not editable)',
    );
  });

  it('has one <details> per changed object, none for no-ops, deletes, replaces and blocked ones first', () => {
    const summaries = [...md.matchAll(/<details><summary>(.*)<\/summary>/g)].map((m) => m[1]);
    expect(summaries).toEqual([
      '<code>-</code> <b>FolderPermissions/Distribution/Initech/Inbound</b> delete',
      '<code>-/+</code> <b>Task/Globex outbound</b> replace',
      '<code>!</code> <b>Task/Legacy EDI router</b> blocked',
      '<code>~</code> <b>ResourceGroupAcl/Finance/Finance Operators</b> update',
      '<code>~</code> <b>Task/Payroll to bank</b> update',
      '<code>~</code> <b>Task/Bank statements in</b> update (renamed from <code>Bank statements import</code>)',
      '<code>+</code> <b>Task/Globex inbound</b> create',
      '<code>~</code> <b>FolderPermissions/Distribution/Acme/Outbound</b> update',
      '<code>+</code> <b>FolderPermissions/Distribution/Globex/Reports</b> create',
    ]);
    expect(md.match(/<\/details>/g)).toHaveLength(9);
  });

  it('puts field differences in diff blocks, sensitive values hidden', () => {
    expect(md).toContain('```diff\n- Group: ["Partners"]\n+ Group: ["Operations"] # forces replacement\n');
    expect(md).toContain('~ Parameters.ApiKey: (sensitive)');
    expect(md).toContain(
      '~ Info.Notes:\n   Owner: finance-it@example.com\n-  Runs after the payroll close.\n+  Escalation: treasury on-call, +44 20 7946 0000\n',
    );
    expect(md).not.toContain('BANK_API_KEY');
    expect(md).not.toContain('GLOBEX_FTP_PASSWORD');
  });

  it('shows a folder rename in its summary line and as a path change', () => {
    const out = renderPlanMarkdown(planWith([FOLDER_RENAME]), { artifactHint: 'the plan artifact' });
    expect(out).toContain(
      '<details><summary><code>~</code> <b>FolderPermissions/Distribution/Acme/Incoming</b> update (renamed from <code>/Distribution/Acme/Inbound</code>)</summary>',
    );
    expect(out).toContain('```diff\n- path: "/Distribution/Acme/Inbound"\n+ path: "/Distribution/Acme/Incoming"\n```');
  });

  it('describes schedules in words', () => {
    expect(md).toContain('**Schedules in words:** Mon, Wed and Fri at 20:00 → Weekdays (Mon–Fri) at 20:00');
    expect(md).toContain(
      '**Schedules in words:** Weekdays (Mon–Fri), repeatedly from 06:00 to 18:00 → Weekdays (Mon–Fri), repeatedly from 06:00 to 18:00; Every Saturday at 09:00',
    );
  });

  it('draws folder ACLs as a matrix of only the permissions that change, in words, with a legend', () => {
    expect(md).toContain(
      [
        '| Principal | Change | readFiles | deleteFiles | listFiles | notify | share: readFiles |',
        '|:--|:--|:-:|:-:|:-:|:-:|:-:|',
        '| Group Acme Partners | unchanged | yes | · | yes | · | · |',
        '| User alice | update | yes | **removed** | yes | **added** | **removed** |',
        '| User acme-svc | create | **added** | **added** | **added** | · | · |',
        '| User bob | delete | **removed** | · | **removed** | · | · |',
        '| User carol | blocked | yes | yes | yes | · | · |',
        '',
        '**added**, **removed**: by this change · yes: granted before and after · ·: not granted · the other 5 permissions do not change',
      ].join('\n'),
    );
    // The look-alike marks of before (✓ and +, ✗ and −) are gone from every matrix.
    for (const table of md.split('\n').filter((l) => l.startsWith('| User') || l.startsWith('| Group'))) expect(table).not.toMatch(/[✓✗−]| \+ /);
  });

  it('draws a matrix with no permission columns as a well-formed table when no entry has any permission', () => {
    const folder: Change = {
      address: 'FolderPermissions/Empty',
      kind: 'FolderPermissions',
      name: '/Empty',
      service: 'transfer',
      action: 'update',
      fields: [],
      entries: [
        {
          principal: { type: 'User', name: 'eve' },
          action: 'blocked',
          reason: { code: 'entry-not-editable', principal: { type: 'User', name: 'eve' } },
          before: { permissions: [], sharePermissions: [] },
        },
      ],
    };
    const out = renderPlanMarkdown(planWith([folder]));
    expect(out).toContain('| Principal | Change |\n|:--|:--|\n| User eve | blocked |\n');
  });

  it('is not cut when it fits, and says nothing about left-out details', () => {
    expect(md).not.toContain('[!NOTE]');
    expect(md).toContain('<sub>mftops 0.1.0 · 2026-03-02T09:14:07Z · automation https://automation.example.com/api/v1 2024.1.0.58 as mftops-svc');
  });

  it('says in a note under the title when prune is off, and why', () => {
    const out = renderPlanMarkdown(planWith(plan.changes, { pruneOff: { reason: 'partial-manifests', kinds: ['Task'] } }));
    expect(out.split('\n').slice(0, 5)).toEqual([
      '## mftops plan: prod',
      '',
      '> [!NOTE]',
      '> Prune is off: only part of the manifests was given (pass --prune to prune anyway).',
      '',
    ]);
    expect(md).not.toContain('Prune is off');
  });

  it('says "No changes" with a table of unchanged objects and nothing else', () => {
    const out = renderPlanMarkdown(planWith(plan.changes.filter((c) => c.action === 'no-op')));
    expect(out).toContain('**No changes.** The servers match the manifests.');
    expect(out).not.toContain('[!');
    expect(out).not.toContain('### Changed objects');
    expect(out).toContain('| **Total** | **0** | **0** | **0** | **0** | **0** | **4** |');
    expect(out).not.toContain('<details>');
    expect(out).not.toContain('[!WARNING]');
    expect(renderPlanMarkdown(planWith([]))).toContain('**No changes.** The servers match the manifests.');
  });
});

describe('escaping user values', () => {
  const hostileNames = [
    'a|b',
    '<details><summary>x</summary>',
    '```\n# Heading',
    '<script>alert(1)</script>',
    '@octo-org/admins **bold** [link](https://evil.example)',
    'back`tick\n\nnew paragraph',
  ];
  const changes: Change[] = hostileNames.flatMap((name, i): Change[] => [
    {
      address: `Task/${name}`,
      kind: 'Task',
      name,
      service: 'automation',
      action: i % 2 === 0 ? 'update' : 'delete',
      reason: { code: 'pruned', kind: 'Task', scope: [`because ${name}`] },
      previousName: name,
      fields: [{ path: `Parameters.${name}`, before: `${name}\n\`\`\`\`\nmore`, after: name }],
      source: { file: `manifests/${name}.yaml`, line: 1, col: 1 },
    },
    {
      address: `FolderPermissions/${name}`,
      kind: 'FolderPermissions',
      name: `/${name}`,
      service: 'transfer',
      action: 'update',
      fields: [],
      entries: [
        {
          principal: { type: 'Group', name },
          action: 'blocked',
          reason: { code: 'entry-not-editable', principal: { type: 'Group', name } },
          before: { permissions: ['readFiles', name], sharePermissions: [] },
        },
      ],
    },
  ]);
  const out = renderPlanMarkdown(planWith(changes, { environment: 'prod | <b>x</b>' }));
  const lines = out.split('\n');
  const markup = outsideCode(out);

  it('lets no raw HTML from a name through', () => {
    expect(markup).not.toContain('<script>');
    expect(markup).not.toContain('<b>x</b>');
    expect(markup.match(/<details>/g)).toHaveLength(changes.length);
    expect(markup.match(/<\/details>/g)).toHaveLength(changes.length);
    expect(markup.match(/<summary>/g)).toHaveLength(changes.length);
  });

  it('keeps every <details><summary> on one line, so a newline in a name cannot end it', () => {
    for (const l of lines.filter((x) => x.startsWith('<details>'))) expect(l).toMatch(/^<details><summary>.*<\/summary>$/);
    expect(markup.split('\n').filter((l) => l === '# Heading' || l === 'new paragraph')).toEqual([]);
  });

  it('keeps table rows whole when a name has a pipe', () => {
    const [summaryTable, ...matrices] = tableShapes(markup);
    // Summary: kind + 6 actions = 7 cells (9 pieces around 8 pipes); matrices of blocked entries
    // (nothing changes): principal, change, the permissions granted (readFiles, the odd name) = 4 cells.
    expect(new Set(summaryTable)).toEqual(new Set([9]));
    expect(matrices).toHaveLength(hostileNames.length);
    for (const m of matrices) expect(new Set(m)).toEqual(new Set([6]));
    expect(lines[0]).toBe('## mftops plan: prod &#124; &#60;b&#62;x&#60;/b&#62;');
  });

  it('fences diff blocks with more backticks than any value holds', () => {
    let open: string | undefined;
    for (const l of lines) {
      if (open === undefined) {
        const m = /^(`{3,})diff$/.exec(l);
        if (m) open = m[1];
      } else if (l === open) open = undefined;
      else expect(l.startsWith(open), `line ${JSON.stringify(l)} would close the fence`).toBe(false);
    }
    expect(open).toBeUndefined();
    expect(out).toContain('`````diff\n');
  });

  it('mentions nobody and links nothing', () => {
    expect(markup).not.toContain('@octo-org');
    expect(markup).not.toContain('[link](');
    expect(markup).not.toContain('**bold**');
  });
});

/** The names the compact list gives, from its lines (code spans and `<code>`). */
function namedIn(markdown: string): string[] {
  const start = markdown.indexOf('| **Total** |');
  const ends = ['\n> [!NOTE]\n> To keep', '### Details', '\n<sub>mftops'].map((e) => markdown.indexOf(e, start)).filter((i) => i >= 0);
  const list = markdown.slice(start, ends.length > 0 ? Math.min(...ends) : undefined);
  return [...list.matchAll(/`([^`]+)`|<code>([^<]+)<\/code>/g)].map((m) => m[1] ?? m[2]!).filter((n) => !/^[-~+!]$|^-\/\+$/.test(n));
}

describe('keeping under maxLength', () => {
  it('renders 5,000 changes under 65,536 characters: summary table whole, every destructive and blocked object named, the rest counted', () => {
    const g = generatePlan(5000);
    const started = performance.now();
    const out = renderPlanMarkdown(g.plan, { artifactHint: 'the plan artifact' });
    const ms = performance.now() - started;
    console.log(`markdown for 5,000 changes: ${out.length} characters in ${Math.round(ms)} ms`);
    expect(out.length).toBeLessThanOrEqual(65_000);
    expect(out).toContain(expectedTable(g).join('\n'));
    const named = new Set(namedIn(out));
    for (const c of g.plan.changes.filter((c) => c.action === 'delete' || c.action === 'replace' || c.action === 'blocked'))
      expect(named.has(c.name), c.address).toBe(true);
    const unnamed = g.plan.changes.filter((c) => c.action !== 'no-op').length - named.size;
    expect(unnamed).toBeGreaterThan(0);
    expect(out).toContain(
      `${unnamed.toLocaleString('en-US')} of the ${(5000 - g.plan.summary['no-op']).toLocaleString('en-US')} changed objects are not named here, to keep this comment within its size. The full plan is in the plan artifact.`,
    );
    // The call-outs' reasons went before the names: they end with a count and a pointer.
    expect(out).toMatch(/> (- …and [\d,]+ more, listed in|The list is in) the plan artifact\./);
  });

  it('shortens the blocked list before the destructive one: deletes and replaces stay listed longest', () => {
    // 1,000 changes: 200 destructive and 100 blocked call-out items; 65,000 characters hold every
    // name and the first list whole, but not both lists.
    const g = generatePlan(1000);
    const out = renderPlanMarkdown(g.plan, { maxLength: 65_000, artifactHint: 'the plan artifact' });
    const warning = out.slice(out.indexOf('> [!WARNING]\n> **'), out.indexOf('> [!CAUTION]\n> **', out.indexOf('> [!WARNING]\n> **')));
    const caution = out.slice(out.indexOf('> [!CAUTION]\n> **', out.indexOf('> [!WARNING]\n> **')));
    const destructive = g.counts.Task.replace + g.counts.Task.delete + g.counts.FolderPermissions.delete + g.counts.ResourceGroupAcl.delete;
    expect(warning.match(/^> - <code>/gm)?.length).toBe(destructive);
    expect(warning).not.toContain('more, listed in');
    expect(caution).toMatch(/> (- …and [\d,]+ more, listed in|The list is in) the plan artifact\./);
    expect(out).not.toContain('not named here');
  });

  it('names as many objects as fit, from the start, once no details fit with all of them', () => {
    const g = generatePlan(5000, { destructive: false });
    const out = renderPlanMarkdown(g.plan, { artifactHint: 'the plan artifact' });
    expect(out.length).toBeLessThanOrEqual(65_000);
    expect(out).toContain(expectedTable(g).join('\n'));
    expect(out).not.toContain('[!WARNING]');
    expect(out).not.toMatch(/^<details><summary><code>/m);
    const named = namedIn(out);
    expect(named.length).toBeGreaterThan(1500);
    expect(named).toContain('Partner pull 0001');
    expect(named).not.toContain('Partner pull 5000');
    const changed = g.plan.changes.filter((c) => c.action !== 'no-op').length;
    expect(out).toContain(`${(changed - named.length).toLocaleString('en-US')} of the ${changed.toLocaleString('en-US')} changed objects are not named here`);
  });

  it('drops <details> bodies from the end first; the objects stay named in the list', () => {
    const full = renderPlanMarkdown(plan);
    const out = renderPlanMarkdown(plan, { maxLength: full.length - 200 });
    expect(out.length).toBeLessThanOrEqual(full.length - 200);
    expect(out).toContain('<details><summary><code>-</code> <b>FolderPermissions/Distribution/Initech/Inbound</b> delete</summary>');
    expect(out).not.toContain('<details><summary><code>+</code> <b>FolderPermissions/Distribution/Globex/Reports</b>');
    expect(namedIn(out)).toEqual(namedIn(full));
    expect(out).toMatch(
      /> To keep this comment under [\d,]+ characters, the details of the last [1-9] of the 9 changed objects are left out\. The full plan is in the output of `mftops plan`\./,
    );
  });

  it('is exactly the full rendering at its own length, and cut one character below', () => {
    const full = renderPlanMarkdown(plan);
    expect(renderPlanMarkdown(plan, { maxLength: full.length })).toBe(full);
    const cut = renderPlanMarkdown(plan, { maxLength: full.length - 1 });
    expect(cut.length).toBeLessThan(full.length);
    expect(cut).toContain('[!NOTE]');
  });

  it.each([4_000, 2_500])('keeps the verdict and the summary table whole at maxLength %i with 5,000 changes', (maxLength) => {
    const g = generatePlan(5000);
    const out = renderPlanMarkdown(g.plan, { maxLength, artifactHint: 'the plan artifact' });
    expect(out.length).toBeLessThanOrEqual(maxLength);
    expect(out).toContain(expectedTable(g).join('\n'));
    expect(out).toContain('**Needs `--allow-delete`:**');
    expect(out).toContain('> [!WARNING]\n> **1,000 destructive changes:**');
    expect(out).toContain('> [!CAUTION]\n> **500 changes blocked:**');
    expect(out).toMatch(/> (- …and [\d,]+ more, listed in|The list is in) the plan artifact\./);
    expect(out).toMatch(/[\d,]+ of the [\d,]+ changed objects are not named here/);
  });

  it('refuses a maxLength too small for even the summary', () => {
    expect(() => renderPlanMarkdown(plan, { maxLength: 200 })).toThrow(RangeError);
    expect(() => renderPlanMarkdown(plan, { maxLength: 0 })).toThrow(RangeError);
  });

  it('shortens a very long environment name in the title so the summary still fits', () => {
    const out = renderPlanMarkdown(planWith(plan.changes, { environment: 'e'.repeat(5000) }), { maxLength: 2_500 });
    expect(out.length).toBeLessThanOrEqual(2_500);
    expect(out.split('\n')[0]).toBe(`## mftops plan: ${'e'.repeat(80)}…`);
  });
});

describe('the access section in a large PR comment', () => {
  /** `n` access changes on the generated plan's folders: users losing a group's permissions, every third gaining `admin`. */
  function withAccess(plan: Plan, n: number): Plan {
    const changes: AccessChange[] = Array.from({ length: n }, (_, i) => ({
      address: `FolderPermissions/Distribution/Partner ${String(i % 500).padStart(4, '0')}/Outbound`,
      who: { type: 'User', name: `user${String(i).padStart(5, '0')}` },
      service: 'transfer',
      target: `/Distribution/Partner ${String(i % 500).padStart(4, '0')}/Outbound`,
      gained: i % 3 === 0 ? ['admin'] : [],
      lost: i % 3 === 0 ? [] : ['readFiles', 'listFiles'],
      via: [{ type: 'Group', name: 'Auditors' }],
      removed: i % 3 !== 0,
      flagged: i % 3 === 0 ? ['admin'] : [],
    }));
    return { ...plan, access: { changes, membersUnknown: [] } };
  }

  it('keeps every principal in the access section, folded, before the list of objects; the per-object details are cut instead (1,000 changes)', () => {
    const plan = withAccess(generatePlan(1000, { destructive: false }).plan, 120);
    const out = renderPlanMarkdown(plan, { artifactHint: 'the plan artifact' });
    expect(out.length).toBeLessThanOrEqual(65_536);
    const section = out.indexOf('<details><summary><b>Access changes:</b> 40 users gain access, 80 lose access (120 principals)</summary>');
    expect(section).toBeGreaterThan(out.indexOf('**Plan:**'));
    expect(section).toBeLessThan(out.indexOf('### Changed objects'));
    expect(out).toMatch(/the details of the last [\d,]+ of the 1,000 changed objects are left out/);
    expect(out.slice(section).match(/^- (:warning: )?user\d{5} /gm)?.length).toBe(120);
    expect(out).toContain('- :warning: user00000 gains admin on /Distribution/Partner 0000/Outbound (via group Auditors) — **grants `admin`**');
  });

  it('cuts the access list, to a count and a pointer, before the names of the changed objects', () => {
    const plan = withAccess(generatePlan(5000).plan, 5000);
    const out = renderPlanMarkdown(plan, { artifactHint: 'the plan artifact' });
    expect(out.length).toBeLessThanOrEqual(65_536);
    expect(out).toContain('1,667 users gain access, 3,333 lose access');
    expect(out).toMatch(/\n(- …and [\d,]+ more, listed in|The list is in) the plan artifact\.\n\n<\/details>/);
    expect(out).not.toMatch(/^<details><summary><code>/m);
    expect(namedIn(out).length).toBeGreaterThan(1000);
    expect(out.indexOf('> [!WARNING]\n> **1,000 destructive changes:**')).toBeLessThan(out.indexOf('<b>Access changes:</b>'));
  });
});
