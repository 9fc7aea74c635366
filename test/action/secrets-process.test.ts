import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startSeededEmulator } from '../integration/helpers.js';
import { writesOf } from '../apply/helpers.js';
import { ALL_SECRETS, checkout, CREDENTIALS, freshBundle, MANIFEST_SECRETS, runActionProcess } from './harness.js';

/**
 * The Action runs the apply use case of src/app, so a missing secret refuses its apply as it
 * refuses the CLI's: every one named, nothing written. Run as a runner runs it, from a bundle of
 * the sources as they are now (the committed bundle is rebuilt only after a merge), in a bare
 * checkout of the action.
 */

const GLOBEX_SECRET = 'globex-ftp-env-secret-3390';
const AUDIT_FILE = 'mft/manifests/tasks/secrets/finance-share-audit.txt';

/** The example checkout, with a second `${env:}` secret in a task the plan updates. */
function checkoutWithTwoVariables(emulator: RunningEmulator): string {
  const ws = checkout(emulator);
  const partners = join(ws, 'mft/manifests/tasks/partners.yaml');
  const plain = '- Destination: { Host: globex-ftp, Path: /upload, OverwriteOrig: 0 }';
  const text = readFileSync(partners, 'utf8');
  expect(text).toContain(plain);
  writeFileSync(
    partners,
    text.replace(
      plain,
      '- Destination: { Host: globex-ftp, Path: /upload, OverwriteOrig: 0, UseDefUser: 0, Username: mft-push, Password: "${env:GLOBEX_FTP_PASSWORD}" }',
    ),
  );
  return ws;
}

describe('the Action with secrets that have no value', () => {
  it('plan annotates each as a warning; apply refuses naming all three and writes nothing; with them set, apply writes', async () => {
    const bundle = await freshBundle();
    const emulator = await startSeededEmulator();
    onTestFinished(() => emulator.close());
    const ws = checkoutWithTwoVariables(emulator);
    rmSync(join(ws, AUDIT_FILE));
    const { ACME_SFTP_PASSWORD: _acme, ...env } = CREDENTIALS;
    const missingFile = join(ws, AUDIT_FILE);

    const plan = await runActionProcess({
      inputs: { command: 'plan', 'working-directory': 'mft', comment: 'false' },
      workspace: ws,
      eventName: 'pull_request',
      env,
      bundle,
    });
    expect(plan.code).toBe(0);
    expect(plan.outputs['exitcode']).toBe('2');
    const warnings = plan.stdout.split('\n').filter((l) => l.includes('title=MF414'));
    expect(warnings).toEqual([
      expect.stringMatching(
        /^::warning file=mft\/manifests\/tasks\/operations\.yaml,line=\d+,col=\d+.*::secret file .*finance-share-audit\.txt does not exist: apply will refuse this plan/,
      ),
      expect.stringMatching(
        /^::warning file=mft\/manifests\/tasks\/partners\.yaml,line=23,col=19.*::environment variable ACME_SFTP_PASSWORD is not set: apply will refuse this plan/,
      ),
      expect.stringMatching(
        /^::warning file=mft\/manifests\/tasks\/partners\.yaml,line=\d+,col=\d+.*::environment variable GLOBEX_FTP_PASSWORD is not set: apply will refuse this plan/,
      ),
    ]);
    const reviewed = join(ws, 'reviewed-plan.json');
    copyFileSync(plan.outputs['plan-file']!, reviewed);

    emulator.resetRequestLog();
    const apply = await runActionProcess({
      inputs: { command: 'apply', 'working-directory': 'mft', 'plan-file': reviewed },
      workspace: ws,
      eventName: 'push',
      env,
      bundle,
    });
    expect(apply.code).toBe(1);
    expect(apply.outputs['exitcode']).toBe('1');
    const error = apply.stdout.split('\n').find((l) => l.startsWith('::error::mftops apply:'));
    expect(error).toContain('Apply refused; nothing was written:');
    expect(error).toContain('environment variable ACME_SFTP_PASSWORD is not set: needed by Task/Acme outbound');
    expect(error).toContain('environment variable GLOBEX_FTP_PASSWORD is not set: needed by Task/Globex outbound');
    expect(error).toContain(`secret file ${missingFile} does not exist: needed by Task/Audit export`);
    expect(JSON.parse(readFileSync(apply.outputs['report-file']!, 'utf8'))).toMatchObject({ outcome: 'refused' });
    expect(writesOf(emulator)).toEqual([]);

    // Set, the same reviewed plan applies.
    writeFileSync(missingFile, MANIFEST_SECRETS.auditShare);
    const withSecrets = { ...CREDENTIALS, GLOBEX_FTP_PASSWORD: GLOBEX_SECRET };
    const applied = await runActionProcess({
      inputs: { command: 'apply', 'working-directory': 'mft', 'plan-file': reviewed },
      workspace: ws,
      eventName: 'push',
      env: withSecrets,
      bundle,
    });
    expect(applied.code).toBe(0);
    expect(JSON.parse(readFileSync(applied.outputs['report-file']!, 'utf8'))).toMatchObject({ outcome: 'applied', counts: { failed: 0 } });
    expect(writesOf(emulator).length).toBeGreaterThan(0);

    const everything = [
      plan.stdout,
      plan.summary,
      apply.stdout,
      apply.summary,
      applied.stdout,
      applied.summary,
      JSON.stringify([plan.outputs, apply.outputs, applied.outputs]),
    ].join('\n');
    for (const secret of [...ALL_SECRETS, GLOBEX_SECRET]) expect(everything).not.toContain(secret);
  }, 120_000);
});
