import fc from 'fast-check';
import type { EmulatorSeed } from '../../src/emulator/index.js';
import { ACL_PERMISSIONS, FOLDER_PERMISSIONS, SHARE_PERMISSIONS, WEEK_DAYS } from '../../src/vocabulary.js';

/**
 * Server states within the API references, as emulator seeds, and manifests against them: what the
 * fidelity round trips (round-trips.test.ts) are made of. The catalog (hosts, scripts, date lists)
 * is fixed; what varies is what users manage: tasks, resource-group ACLs, folders and their entries.
 */

/** Host, script and date-list ids of the fixed catalog. */
export const CATALOG = {
  hosts: [
    { type: 'SSHFTP', ID: '201001', Name: 'partner-sftp', extra: { Host: 'sftp.example.com', Port: 22, DefUsername: 'svc', DefPassword: 'sftp-SEEDSECRET-1' } },
    { type: 'siLock', ID: '201002', Name: 'xfer', extra: { Host: 'xfer.example.com', DefUsername: 'automation', DefPassword: 'xfer-SEEDSECRET-2' } },
    { type: 'FileSystem', ID: '201003', Name: 'local-fs', extra: {} },
  ],
  scripts: [
    { ID: '301001', Name: 'PGP Encrypt' },
    { ID: '301002', Name: 'Zip Archive' },
  ],
  dateLists: [
    { ID: '303001', Name: 'Bank Holidays 2026' },
    { ID: '303002', Name: 'Year End' },
  ],
} as const;

const RESOURCE_GROUPS = ['Finance', 'Partners', 'Operations'] as const;
const USER_GROUPS = ['Operators', 'Auditors', 'Partner Managers'] as const;
/** Passwords and secret values a test seeds and then looks for in every output. */
export const SEEDED_SECRET = 'SEEDSECRET';

const word = fc.constantFrom('Payroll', 'Statements', 'Acme', 'Globex', 'Archive', 'Cleanup', 'Reports', 'Invoices', 'EDI', 'Audit');
const time = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
  .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
const flag = fc.constantFrom(0, 1);
const subset = <T>(items: readonly T[], min = 0) => fc.subarray([...items], { minLength: min });

const schedule = fc.record(
  {
    Days: fc.record({ DayOfWeek: subset(WEEK_DAYS, 1) }),
    Frequency: fc.record({ Interval: fc.array(fc.record({ StartTime: time, EndTime: time }), { minLength: 1, maxLength: 2 }) }),
    DateListRef: fc.subarray(
      CATALOG.dateLists.map((d) => ({ DateListID: d.ID })),
      { minLength: 1 },
    ),
    RunEvenIfNotif: flag,
  },
  { requiredKeys: ['Frequency'] },
);

const path = fc.array(fc.constantFrom('in', 'out', 'drop', 'archive', '2026'), { minLength: 1, maxLength: 3 }).map((p) => `/${p.join('/')}`);

const source = fc.record(
  {
    HostID: fc.constantFrom(...CATALOG.hosts.map((h) => h.ID)),
    Path: path,
    FileMask: fc.constantFrom('*', '*.csv', '*.xml'),
    DeleteOrig: fc.constantFrom(0, 1),
    RetryCount: fc.integer({ min: 0, max: 32000 }),
    SearchSubdirs: flag,
    NewFilesOnly: flag,
    Username: fc.constantFrom('acme', 'globex'),
  },
  { requiredKeys: ['HostID', 'Path'] },
);

const destination = fc.record(
  { HostID: fc.constantFrom(...CATALOG.hosts.map((h) => h.ID)), Path: path, OverwriteOrig: flag },
  { requiredKeys: ['HostID', 'Path'] },
);

const process = fc.record({ ScriptID: fc.constantFrom(...CATALOG.scripts.map((s) => s.ID)), Run: fc.constantFrom('per-file', 'once') });

/**
 * A schedule that shows every form a server writes schedules in: day names, a `DateListRef`, and
 * an hour below 10 (the only hours that tell `09:05` from `9:05`). The client writes what it has
 * seen a server answer; a server that has never shown a form gets the reference's, which a server
 * that refuses that form cannot take (docs/server-variants.md, "Write the server's own form").
 */
const witnessSchedule = fc.record({
  Days: fc.record({ DayOfWeek: subset(WEEK_DAYS, 1) }),
  Frequency: fc.record({
    Interval: fc
      .tuple(fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 59 }))
      .map(([h, m]) => [{ StartTime: `0${h}:${String(m).padStart(2, '0')}`, EndTime: '23:59' }]),
  }),
  DateListRef: fc.subarray(
    CATALOG.dateLists.map((d) => ({ DateListID: d.ID })),
    { minLength: 1 },
  ),
});

/** A task body as POST /tasks takes it; a `Username` on the source comes with a password. */
const task = (name: string, groups: readonly string[], witness: boolean) =>
  fc
    .record(
      {
        Group: fc.constantFrom(...groups).map((g) => [g]),
        Active: flag,
        Info: fc.record({ Description: fc.constantFrom('Nightly run', 'Partner exchange', 'Kept for audit') }),
        Parameters: fc.dictionary(
          fc.constantFrom('Region', 'Mode', 'Recipient'),
          fc.constantFrom('EU', 'fast', 'bank@example.com').map((value) => ({ value })),
          { maxKeys: 2 },
        ),
        secret: fc.boolean(),
        Schedules: (witness ? fc.tuple(witnessSchedule).map((w) => [...w]) : fc.array(schedule, { maxLength: 2 })).map((Schedule) => ({ Schedule })),
        source,
        process: fc.option(process, { nil: undefined }),
        destination,
      },
      { requiredKeys: witness ? ['Group', 'Active', 'source', 'destination', 'Schedules'] : ['Group', 'Active', 'source', 'destination'] },
    )
    .map(({ secret, source: src, process: proc, destination: dest, Parameters, ...rest }) => ({
      Name: name,
      ...rest,
      Parameters: { ...(Parameters ?? {}), ...(secret ? { ApiKey: { value: `key-${SEEDED_SECRET}-9`, Secret: 1 } } : {}) },
      steps: [
        { Source: { ...src, ...(src.Username !== undefined ? { Password: `step-${SEEDED_SECRET}-8` } : {}) } },
        ...(proc ? [{ Process: proc }] : []),
        { Destination: dest },
      ],
    }));

const PRINCIPAL_USERS = [
  { username: 'acme-upload', fullName: 'Acme Upload Service' },
  { username: 'bob', fullName: 'Bob Tanaka' },
  { username: 'carol', fullName: 'Carol Diaz' },
] as const;
const PRINCIPAL_GROUPS = ['Acme Partners', 'Finance Team'] as const;
const FOLDERS = ['/Data', '/Data/Acme', '/Data/Acme/Inbound', '/Data/Acme/Outbound', '/Data/Finance'] as const;

const entryPermissions = fc.record({ permissions: subset(FOLDER_PERMISSIONS, 1), share: subset(SHARE_PERMISSIONS) });

/** A server state: some tasks, ACLs, folders with entries, over the fixed catalog. */
export const serverState: fc.Arbitrary<EmulatorSeed> = fc
  .record({
    groups: subset(RESOURCE_GROUPS, 1),
    userGroups: subset(USER_GROUPS, 1),
    taskNames: fc.uniqueArray(
      fc.tuple(word, fc.integer({ min: 1, max: 9 })).map(([w, n]) => `${w} ${n}`),
      { minLength: 1, maxLength: 4, selector: (n) => n.toLowerCase() },
    ),
    acls: fc.array(fc.tuple(fc.nat(), fc.nat(), subset(ACL_PERMISSIONS)), { maxLength: 3 }),
    folders: fc.subarray([...FOLDERS], { minLength: 1 }),
    entries: fc.array(fc.tuple(fc.nat(), fc.boolean(), fc.nat(), entryPermissions), { maxLength: 6 }),
  })
  .chain((s) =>
    fc.tuple(fc.constant(s), fc.tuple(...s.taskNames.map((n, i) => task(n, s.groups, i === 0)))).map(([state, tasks]) => {
      const aclPairs = new Map<string, Record<string, 0 | 1>>();
      for (const [rg, ug, perms] of state.acls) {
        const key = `${state.groups[rg % state.groups.length]}\u0000${state.userGroups[ug % state.userGroups.length]}`;
        const p: Record<string, 0 | 1> = Object.fromEntries(perms.map((x) => [x, 1]));
        // The reference's rule: TaskEditExisting stays on while TaskAddEditDelete is on.
        if (p.TaskAddEditDelete === 1) p.TaskEditExisting = 1;
        aclPairs.set(key, p);
      }
      const acl = new Map<string, { type: 'User' | 'Group'; name: string; permissions: Record<string, unknown> }[]>();
      for (const [f, isUser, who, perms] of state.entries) {
        const folder = state.folders[f % state.folders.length]!;
        const name = isUser ? PRINCIPAL_USERS[who % PRINCIPAL_USERS.length]!.username : PRINCIPAL_GROUPS[who % PRINCIPAL_GROUPS.length]!;
        const list = acl.get(folder) ?? [];
        if (list.some((e) => e.name === name && e.type === (isUser ? 'User' : 'Group'))) continue;
        const permissions: Record<string, unknown> = Object.fromEntries(perms.permissions.map((p) => [p, true]));
        if (perms.share.length > 0) permissions.sharePermissions = Object.fromEntries(perms.share.map((p) => [p, true]));
        list.push({ type: isUser ? 'User' : 'Group', name, permissions });
        acl.set(folder, list);
      }
      const seed = {
        automation: {
          userGroups: state.userGroups.map((Name) => ({ Name })),
          resourceGroups: state.groups.map((Name) => ({ Name })),
          acls: [...aclPairs].map(([key, Permissions]) => {
            const [ResourceGroupName, UserGroupName] = key.split('\u0000');
            return { ResourceGroupName, UserGroupName, Permissions };
          }),
          hosts: CATALOG.hosts.map((h) => ({ [h.type]: { ID: h.ID, Name: h.Name, ...h.extra } })),
          customScripts: CATALOG.scripts.map((s) => ({ ...s, Lang: 'PS1', Source: '# script' })),
          dateLists: CATALOG.dateLists.map((d) => ({ ...d, Entries: [{ Date: '2026-12-25' }] })),
          tasks,
        },
        transfer: {
          users: [
            { username: 'admin', password: 'xfer-admin-Pa55!seed', fullName: 'Transfer Administrator', permission: 'SysAdmin' as const },
            ...PRINCIPAL_USERS.map((u, i) => ({ ...u, password: `user-${SEEDED_SECRET}-${i}` })),
          ],
          groups: [
            { name: 'Acme Partners', members: ['acme-upload', 'bob'] },
            { name: 'Finance Team', members: ['carol'] },
          ],
          folders: state.folders.map((p) => ({ path: p, ...(acl.has(p) ? { acl: acl.get(p) } : {}) })),
        },
      };
      // Plain JSON, as a seed file would be (the generators' records have no prototype).
      return JSON.parse(JSON.stringify(seed)) as EmulatorSeed;
    }),
  );

// ------------------------------------------------------------------------------------- manifests

/** One manifest file's text and the environment variables its secrets need. */
export interface ManifestSet {
  readonly files: Readonly<Record<string, string>>;
  readonly env: Readonly<Record<string, string>>;
}

const hostName = (id: string) => CATALOG.hosts.find((h) => h.ID === id)!.Name;

function yamlString(s: string): string {
  return JSON.stringify(s);
}

/**
 * Manifests that change a server state: new and existing tasks (some renamed in case only, with
 * short day names, a step password), ACLs, and folder permissions (existing folders, and one that
 * is created). Every name they use exists in `serverState`'s catalog.
 */
export const manifestSet = (seed: EmulatorSeed): fc.Arbitrary<ManifestSet> => {
  const groups = (seed.automation?.resourceGroups ?? []).map((g) => String(g.Name));
  const userGroups = (seed.automation?.userGroups ?? []).map((g) => String(g.Name));
  const existingTasks = (seed.automation?.tasks ?? []).map((t) => String(t.Name));
  const folders = (seed.transfer?.folders ?? []).map((f) => f.path);
  const manifestTask = fc.record({
    existing: fc.option(fc.constantFrom(...(existingTasks.length > 0 ? existingTasks : ['none'])), { nil: undefined }),
    fresh: fc.tuple(word, fc.integer({ min: 10, max: 99 })).map(([w, n]) => `${w} ${n}`),
    group: fc.constantFrom(...groups),
    active: fc.boolean(),
    shortDays: fc.boolean(),
    days: subset(WEEK_DAYS, 1),
    start: time,
    dateList: fc.option(fc.constantFrom(...CATALOG.dateLists.map((d) => d.Name)), { nil: undefined }),
    src: source,
    dest: destination,
    script: fc.option(fc.constantFrom(...CATALOG.scripts.map((s) => s.Name)), { nil: undefined }),
  });
  return fc
    .record({
      tasks: fc.array(manifestTask, { minLength: 1, maxLength: 3 }),
      acls: fc.array(fc.tuple(fc.constantFrom(...groups), fc.constantFrom(...userGroups), subset(ACL_PERMISSIONS)), { maxLength: 2 }),
      folders: fc.array(
        fc.tuple(fc.constantFrom(...folders, '/Data/New'), fc.array(fc.tuple(fc.boolean(), fc.nat(), entryPermissions), { minLength: 1, maxLength: 3 })),
        { maxLength: 3 },
      ),
    })
    .map(({ tasks, acls, folders: folderDocs }) => {
      const docs: string[] = [];
      const env: Record<string, string> = {};
      const names = new Set<string>();
      tasks.forEach((t, i) => {
        const name = t.existing !== undefined && t.existing !== 'none' ? t.existing : t.fresh;
        if (names.has(name.toLowerCase())) return;
        names.add(name.toLowerCase());
        const days = t.shortDays ? t.days.map((d) => d.slice(0, 3)) : t.days;
        const src = t.src;
        const srcFields = [`Host: ${yamlString(hostName(src.HostID))}`, `Path: ${yamlString(src.Path)}`];
        if (src.FileMask !== undefined) srcFields.push(`FileMask: ${yamlString(src.FileMask)}`);
        if (src.DeleteOrig !== undefined) srcFields.push(`DeleteOrig: ${src.DeleteOrig}`);
        if (src.RetryCount !== undefined) srcFields.push(`RetryCount: ${src.RetryCount}`);
        if (src.SearchSubdirs !== undefined) srcFields.push(`SearchSubdirs: ${src.SearchSubdirs === 1 ? 'true' : 'false'}`);
        if (src.Username !== undefined) {
          const variable = `FIDELITY_STEP_PASSWORD_${i}`;
          env[variable] = `manifest-${SEEDED_SECRET}-${i}`;
          srcFields.push(`Username: ${src.Username}`, `Password: "\${env:${variable}}"`);
        }
        docs.push(
          [
            'apiVersion: mftops/v1',
            'kind: Task',
            `metadata: { name: ${yamlString(name)} }`,
            'spec:',
            `  Active: ${t.active ? 1 : 0}`,
            `  Group: [${yamlString(t.group)}]`,
            '  Schedules:',
            '    Schedule:',
            `      - Days: { DayOfWeek: [${days.join(', ')}] }`,
            ...(t.dateList !== undefined ? [`        DateListRef: [${yamlString(t.dateList)}]`] : []),
            `        Frequency: { Interval: [{ StartTime: "${t.start}", EndTime: "${t.start}" }] }`,
            '  steps:',
            `    - Source: { ${srcFields.join(', ')} }`,
            ...(t.script !== undefined ? [`    - Process: { Script: ${yamlString(t.script)}, Run: per-file }`] : []),
            `    - Destination: { Host: ${yamlString(hostName(t.dest.HostID))}, Path: ${yamlString(t.dest.Path)}, OverwriteOrig: ${t.dest.OverwriteOrig ?? 0} }`,
          ].join('\n'),
        );
      });
      const pairs = new Set<string>();
      acls.forEach(([rg, ug, perms], i) => {
        if (pairs.has(`${rg}/${ug}`)) return;
        pairs.add(`${rg}/${ug}`);
        const p = new Set(perms);
        if (p.has('TaskAddEditDelete')) p.add('TaskEditExisting');
        docs.push(
          [
            'apiVersion: mftops/v1',
            'kind: ResourceGroupAcl',
            `metadata: { name: acl-${i} }`,
            'spec:',
            `  resourceGroup: ${yamlString(rg)}`,
            `  userGroup: ${yamlString(ug)}`,
            `  permissions: [${[...p].join(', ')}]`,
          ].join('\n'),
        );
      });
      const paths = new Set<string>();
      for (const [folder, entries] of folderDocs) {
        if (paths.has(folder)) continue;
        paths.add(folder);
        const seen = new Set<string>();
        const lines = [];
        for (const [isUser, who, perms] of entries) {
          const name = isUser ? PRINCIPAL_USERS[who % PRINCIPAL_USERS.length]!.username : PRINCIPAL_GROUPS[who % PRINCIPAL_GROUPS.length]!;
          if (seen.has(`${isUser}${name}`)) continue;
          seen.add(`${isUser}${name}`);
          lines.push(`    - ${isUser ? 'user' : 'group'}: ${yamlString(name)}`, `      permissions: [${perms.permissions.join(', ')}]`);
          if (perms.share.length > 0) lines.push(`      sharePermissions: [${perms.share.join(', ')}]`);
        }
        docs.push(
          [
            'apiVersion: mftops/v1',
            'kind: FolderPermissions',
            `metadata: { name: ${folder} }`,
            'spec:',
            ...(folder === '/Data/New' ? ['  createIfMissing: { inheritPermissions: None }'] : []),
            '  mode: exact',
            '  entries:',
            ...lines,
          ].join('\n'),
        );
      }
      const files: Record<string, string> = docs.length > 0 ? { 'manifests/generated.yaml': `${docs.join('\n---\n')}\n` } : {};
      return { files, env };
    });
};
