/**
 * Generates realistic, valid Task manifests of varied shapes, for bulk validation tests and the
 * benchmark. Deterministic: the same count gives the same files.
 */
export const HOSTS = ['payroll-sftp', 'bank-as2', 'finance-share', 'acme-sftp', 'globex-ftp', 'initech-s3', 'local-fs', 'xfer'];
export const SCRIPTS = ['PGP Encrypt', 'PGP Decrypt', 'Zip Archive', 'Rename With Date', 'Unzip', 'Checksum'];
export const GROUPS = ['Finance', 'Partners', 'Operations'];
export const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

export const pick = <T>(list: readonly T[], i: number): T => list[i % list.length]!;
export const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60) % 24).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** The YAML text of generated task number `i` (one document). */
export function generateTaskManifest(i: number): string {
  const start = (i * 37) % (24 * 60);
  const days = DAYS.filter((_, d) => (i >> d) % 2 === 0 || d === i % 7);
  const lines = [
    '# yaml-language-server: $schema=../schemas/manifest.schema.json',
    'apiVersion: mftops/v1',
    'kind: Task',
    'metadata:',
    `  name: Generated task ${String(i).padStart(5, '0')}`,
    ...(i % 10 === 0 ? [`  previousNames: [Old generated task ${i}]`] : []),
    'spec:',
    `  Active: ${i % 3 === 0 ? 'false' : 1}`,
    `  Group: [${pick(GROUPS, i)}]`,
    '  Info:',
    `    Description: Generated transfer ${i} from ${pick(HOSTS, i)} to ${pick(HOSTS, i + 3)}`,
    ...(i % 4 === 0 ? ['  Parameters:', `    Batch: ${i}`, `    Token: { value: "\${env:GEN_TOKEN_${i % 5}}", secret: true }`] : []),
    '  Schedules:',
    '    Schedule:',
    `      - Days: { DayOfWeek: [${days.join(', ')}] }`,
    `        Frequency: { Interval: [{ StartTime: "${hhmm(start)}", EndTime: "${hhmm(start + (i % 2) * 120)}" }] }`,
    ...(i % 6 === 0 ? ['        FailIfNoSuccessInSched: 1', `        Multi: 0`] : []),
    ...(i % 9 === 0 ? ['      - DateListRef: [Bank Holidays 2026]', '        Frequency: { Interval: [{ StartTime: "23:30", EndTime: "23:30" }] }'] : []),
    '  steps:',
    '    - Source:',
    `        Host: ${pick(HOSTS, i)}`,
    `        Path: /out/${i % 17}`,
    `        FileMask: "*.${pick(['csv', 'xml', 'edi', 'json'], i)}"`,
    `        DeleteOrig: ${i % 3}`,
    ...(i % 3 === 2 ? [`        RenameTo: /out/done/[OrigName]`, '        DelRename: true'] : []),
    `        RetryCount: ${i % 32001}`,
    `        RescanSecs: ${i % 1000}`,
    ...(i % 5 === 0 ? ['        UseDefUser: 0', '        Username: svc-gen', `        Password: \${env:GEN_PASSWORD_${i % 3}}`] : []),
    ...(i % 7 === 0 ? ['        Criteria:', '          Or:', '            comp:', '              - { a: "[OrigName]", b: "*.tmp", test: NOTMASK }'] : []),
    ...(i % 2 === 0 ? [`    - Process: { Script: ${pick(SCRIPTS, i)}, Run: per-file }`] : []),
    `    - Destination: { Host: ${pick(HOSTS, i + 3)}, Path: /in/${i % 13}, OverwriteOrig: ${i % 2} }`,
  ];
  return `${lines.join('\n')}\n`;
}

/** `count` manifests as files `gen/<folder>/task-<i>.yaml`, 50 per folder. */
export function generateTaskFiles(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    files[`gen/batch-${String(Math.floor(i / 50)).padStart(3, '0')}/task-${String(i).padStart(5, '0')}.yaml`] = generateTaskManifest(i);
  }
  return files;
}
