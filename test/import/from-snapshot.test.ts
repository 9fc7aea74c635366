import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runImport } from '../../src/cli/commands/import.js';
import { decodeConfigExport } from '../../src/import/from-snapshot.js';
import { importObjects } from '../../src/import/select.js';
import { parseConfigXml, saveSnapshot } from '../../src/snapshot/index.js';
import { automationClientFor, startSeededEmulator, transferClientFor } from '../integration/helpers.js';
import { testdir } from '../helpers/testdir.js';
import { configYaml, globals, io } from '../drift/helpers.js';

const XML = `<?xml version="1.0" encoding="UTF-8"?>
<Config Version="2025.1.0" SchedulerEnabled="1" NextID="9">
  <ACLs>
    <ACL ACLID="5" ResourceGroupName="Finance" UserGroupName="Finance Operators">
      <Permissions TaskRun="1" TaskEditExisting="1" TaskAddEditDelete="0"/>
    </ACL>
  </ACLs>
  <Hosts>
    <SSHFTP ID="1" Name="payroll-sftp" DefPassword="host-SECRET-1"><Group>Finance</Group></SSHFTP>
  </Hosts>
  <CustomScripts><CustomScript ID="2" Name="PGP Encrypt" _extra="{&quot;Source&quot;:&quot;x&quot;}"/></CustomScripts>
  <StandardScripts/>
  <DateLists><DateList ID="3" Name="Holidays"><Entries Date="2026-01-01"/></DateList></DateLists>
  <Tasks>
    <Task ID="4" Name="Payroll to bank" Active="0" AR="0" CacheNames="random" TT="" UseDefStateCaching="0" NextEID="5" Renamed="0" _types="Weird:number" _extra="{&quot;Info&quot;:{&quot;Description&quot;:&quot;line one\\nline two&quot;}}">
      <Group>Finance</Group>
      <Schedules>
        <Schedule ID="1">
          <Days><DayOfWeek>Monday</DayOfWeek></Days>
          <Frequency><Interval StartTime="02:00" EndTime="02:00"/></Frequency>
          <DateListRef DateListID="3"/>
        </Schedule>
      </Schedules>
      <Parameters>
        <Parameter Name="Recipient" value="bank@example.com" Secret="0"/>
        <Parameter Name="ApiKey" value="param-SECRET-2" Secret="1"/>
      </Parameters>
      <NextActions/>
      <Source ID="2" HostID="1" Path="/out" FileMask="*.csv" DeleteOrig="0" RetryCount="3" Type="SSHFTP" Password="step-SECRET-3" Username="svc"/>
      <Process ID="3" ScriptID="2" Run="per-file"><Parameters _types="Parameter:objects"/></Process>
    </Task>
  </Tasks>
</Config>
`;

describe('a saved automation export as an import source', () => {
  it('decodes tasks and ACLs into the API shapes, and no secret value gets past it', () => {
    const source = decodeConfigExport(parseConfigXml(XML), 'snapshot lab/x');
    expect(JSON.stringify(source)).not.toMatch(/SECRET/);
    const result = importObjects(source, { kinds: ['Task', 'ResourceGroupAcl'], all: true, scope: { taskGroups: [], folders: [] } });
    expect(result.manifests.map((m) => m.document)).toEqual([
      {
        apiVersion: 'mftops/v1',
        kind: 'Task',
        metadata: { name: 'Payroll to bank' },
        spec: {
          Active: 0,
          Group: ['Finance'],
          Info: { Description: 'line one\nline two' },
          Parameters: { Recipient: 'bank@example.com', ApiKey: { value: '${env:PAYROLL_TO_BANK_APIKEY}', secret: true } },
          Schedules: {
            Schedule: [{ Days: { DayOfWeek: ['Monday'] }, DateListRef: ['Holidays'], Frequency: { Interval: [{ StartTime: '02:00', EndTime: '02:00' }] } }],
          },
          steps: [
            {
              Source: {
                Host: 'payroll-sftp',
                Path: '/out',
                FileMask: '*.csv',
                DeleteOrig: 0,
                Username: 'svc',
                Password: '${env:PAYROLL_TO_BANK_STEP1_PASSWORD}',
                RetryCount: 3,
              },
            },
            { Process: { Script: 'PGP Encrypt', Run: 'per-file' } },
          ],
        },
      },
      {
        apiVersion: 'mftops/v1',
        kind: 'ResourceGroupAcl',
        metadata: { name: 'finance-finance-operators' },
        spec: { resourceGroup: 'Finance', userGroup: 'Finance Operators', permissions: ['TaskRun', 'TaskEditExisting'] },
      },
    ]);
    expect(result.secrets.map((s) => s.variable)).toEqual(['PAYROLL_TO_BANK_APIKEY', 'PAYROLL_TO_BANK_STEP1_PASSWORD']);
    expect(JSON.stringify(result)).not.toMatch(/SECRET/);
  });

  it('mftops import --from-snapshot writes, with no server running, the same files an import from the server writes', async () => {
    const emulator = await startSeededEmulator({ profile: 'legacy' });
    const dir = testdir({ 'mftops.yaml': configYaml({ url: emulator.url, snapshotsDir: 'snapshots' }) });
    const fromServer = io(dir);
    expect(await runImport(globals(), { kind: ['Task', 'ResourceGroupAcl'], out: 'live', all: true, force: false }, fromServer)).toBe(0);
    expect(
      await runImport(globals(), { kind: ['FolderPermissions'], name: '/Distribution/Acme/Outbound', out: 'live', all: false, force: false }, io(dir)),
    ).toBe(0);
    const automation = automationClientFor(emulator);
    const transfer = transferClientFor(emulator);
    await saveSnapshot({
      automation,
      automationUrl: emulator.automationUrl,
      transfer,
      transferUrl: emulator.transferUrl,
      folders: ['/Distribution/Acme/Outbound'],
      env: 'lab',
      dir: join(dir, 'snapshots'),
      keep: 5,
    });
    await Promise.all([automation.close(), transfer.close()]);
    await emulator.close();

    const fromSnapshot = io(dir);
    expect(
      await runImport(
        globals(),
        { kind: ['Task', 'ResourceGroupAcl', 'FolderPermissions'], out: 'snap', all: true, force: false, fromSnapshot: 'latest' },
        fromSnapshot,
      ),
      fromSnapshot.err(),
    ).toBe(0);
    expect(fromSnapshot.out()).toMatch(/^Imported 12 objects from snapshot lab\/\S+ into snap:/);
    expect(fromSnapshot.err()).toContain('PAYROLL_TO_BANK_APIKEY');
    const list = (root: string) =>
      readdirSync(join(dir, root), { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => join(e.parentPath, e.name).slice(join(dir, root).length))
        .sort();
    expect(list('snap')).toEqual(list('live'));
    for (const f of list('live')) expect(readFileSync(join(dir, 'snap', f), 'utf8'), f).toBe(readFileSync(join(dir, 'live', f), 'utf8'));
    const all = list('snap')
      .map((f) => readFileSync(join(dir, 'snap', f), 'utf8'))
      .join('\n');
    expect(all).not.toMatch(/SEEDSECRET/);
  });
});
