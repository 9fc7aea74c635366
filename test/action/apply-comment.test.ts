import { describe, expect, it } from 'vitest';
import { applyMarker, renderApplyComment, type ApplyResult } from '../../src/action/apply-comment.js';

/** The apply result as the merged pull request shows it: the verdict first, the way out of a failure, always within GitHub's limit. */

const ORIGIN = { runUrl: 'https://github.com/acme-corp/mft-config/actions/runs/42', sha: 'c0ffee0000000000000000000000000000000001' };

const applied: ApplyResult = {
  environment: 'prod',
  status: 'applied',
  headline: 'Apply complete: 2 changed, 0 failed.',
  details: ['  ~ Task/Nightly cleanup: updated'],
  snapshotId: '20261127T090000Z-prod-1a2b',
  verifiedBy: 'replan',
  pullRequests: [12, 14],
};

describe('the apply comment on a merged pull request', () => {
  it('opens with the marker and the verdict, then the snapshot id, the verification and the pull requests applied together', () => {
    const body = renderApplyComment(applied, ORIGIN);
    const lines = body.split('\n');
    expect(lines[0]).toBe(applyMarker('prod'));
    expect(lines[1]).toBe('## mftops apply: prod — ✅ Applied and verified');
    expect(body).toContain('Snapshot before the first write: `20261127T090000Z-prod-1a2b` (`mftops snapshot restore 20261127T090000Z-prod-1a2b`');
    expect(body).toContain('Verified: a plan made after the writes finds nothing left to change.');
    expect(body).toContain('Applied together, each change reviewed on one of: #12, #14.');
    expect(body).toContain('[this workflow run](https://github.com/acme-corp/mft-config/actions/runs/42) for commit c0ffee000000');
    expect(body).not.toContain('[!CAUTION]');
  });

  it('says a failure plainly, with how to run the workflow again', () => {
    const body = renderApplyComment(
      { ...applied, status: 'failed', verifiedBy: undefined, headline: 'Apply finished with 1 failed change.' } as ApplyResult,
      ORIGIN,
    );
    expect(body.split('\n')[1]).toBe('## mftops apply: prod — ❌ Apply failed');
    expect(body).toContain('> [!CAUTION]');
    expect(body).toContain('Actions → mftops apply → Run workflow');
    const refused = renderApplyComment({ environment: 'prod', status: 'refused', headline: 'Nothing was applied: x', details: [], pullRequests: [12] }, ORIGIN);
    expect(refused.split('\n')[1]).toBe('## mftops apply: prod — ⛔ Not applied');
  });

  it('cuts the details, never the verdict or the way out, to fit the limit', () => {
    const details = Array.from({ length: 5000 }, (_, i) => `  ! Task/t${i}: not in any reviewed plan, now update`);
    const body = renderApplyComment({ environment: 'prod', status: 'refused', headline: 'Nothing was applied.', details, pullRequests: [12] }, ORIGIN, 10_000);
    expect(body.length).toBeLessThanOrEqual(10_000);
    expect(body).toContain('⛔ Not applied');
    expect(body).toContain('Run workflow');
    expect(body).toContain('…(cut: the rest is in the log of the run)');
  });
});
