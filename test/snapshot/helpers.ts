import { createHash } from 'node:crypto';
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { AutomationClient } from '../../src/services/index.js';
import { saveSnapshot, type SavedAccounts, type SaveSnapshotOptions, type SnapshotAutomationSource, type SnapshotManifest } from '../../src/snapshot/index.js';
import { automationClientFor, transferClientFor } from '../integration/helpers.js';

/** A 32-byte key as 64 hex digits, and another one. */
export const KEY_HEX = 'a1'.repeat(32);
export const OTHER_KEY_B64 = Buffer.alloc(32, 7).toString('base64');

/** The folders the restore and save tests keep: managed partner folders and a home folder. */
export const FOLDERS = ['/Distribution/Acme/Outbound', '/Distribution/Acme/Inbound', '/Home/alice', '/Distribution/Not/There'];

/** Everything under `dir`, recursively, relative paths sorted (dot-folders included). */
export function treeOf(dir: string): string[] {
  try {
    return (readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[]).sort();
  } catch {
    return [];
  }
}

/** An automation source that copies what GET /config wrote, before the store touches it. */
export function capturingExport(client: AutomationClient, copyTo: string): SnapshotAutomationSource {
  return {
    exportConfig: async (dest) => {
      const result = await client.exportConfig(dest);
      copyFileSync(dest, copyTo);
      return result;
    },
  };
}

export interface Clients {
  readonly automation: AutomationClient;
  readonly transfer: ReturnType<typeof transferClientFor>;
  close(): Promise<void>;
}

export function clientsFor(emulator: RunningEmulator): Clients {
  const automation = automationClientFor(emulator);
  const transfer = transferClientFor(emulator);
  return { automation, transfer, close: async () => void (await Promise.all([automation.close(), transfer.close()])) };
}

/** saveSnapshot against the emulator with the test defaults (env `lab`, keep 30, no key). */
export function saveFrom(emulator: RunningEmulator, clients: Clients, dir: string, extra: Partial<SaveSnapshotOptions> = {}) {
  return saveSnapshot({
    automation: clients.automation,
    automationUrl: emulator.automationUrl,
    serverVersion: '2025.1.0',
    transfer: clients.transfer,
    transferUrl: emulator.transferUrl,
    folders: FOLDERS,
    env: 'lab',
    dir,
    keep: 30,
    processEnv: {},
    ...extra,
  });
}

export function snapshotFolder(dir: string, id: string, env = 'lab'): string {
  return join(dir, env, id);
}

/**
 * Change the users and groups a stored (unencrypted) snapshot holds, and its snapshot.json to
 * match: the snapshot then says the server was otherwise when it was taken.
 */
export function rewriteAccounts(dir: string, id: string, edit: (accounts: SavedAccounts) => SavedAccounts, env = 'lab'): void {
  const folder = snapshotFolder(dir, id, env);
  const manifestPath = join(folder, 'snapshot.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as SnapshotManifest;
  const accounts = edit(JSON.parse(readFileSync(join(folder, 'transfer-accounts.json'), 'utf8')) as SavedAccounts);
  const plain = Buffer.from(`${JSON.stringify(accounts, null, 2)}\n`, 'utf8');
  writeFileSync(join(folder, 'transfer-accounts.json'), plain);
  const file = { file: 'transfer-accounts.json', bytes: plain.length, sha256: createHash('sha256').update(plain).digest('hex') };
  const transfer = { ...manifest.transfer!, accounts: { ...file, userCount: accounts.users.length, groupCount: accounts.groups.length } };
  writeFileSync(manifestPath, JSON.stringify({ ...manifest, transfer }, null, 2));
}
