import { describe, expect, it } from 'vitest';
import { indexByName } from '../../../src/live/model.js';
import type { LiveState } from '../../../src/live/model.js';
import { loadManifests } from '../../../src/manifest/load.js';
import { liveSpecs } from '../../../src/import/removed-content.js';
import { evaluatePolicies } from '../../../src/policy/evaluate.js';
import type { TransferUser, TransferUserDetails } from '../../../src/services/transfer/types.js';
import { planFrom } from '../../resources/fixtures.js';
import { testdir } from '../../helpers/testdir.js';

const USER = 'apiVersion: mftops/v1\nkind: User\nmetadata: { name: alice }\nspec:\n  fullName: Alice\n  permission: Admin\n  password: ${env:ALICE_PASSWORD}\n';

function policy(expression: string): string {
  return `apiVersion: mftops/v1\nkind: Policy\nmetadata: { name: admins }\nspec:\n  severity: deny\n  match: { kinds: [User] }\n  validations:\n    - expression: ${JSON.stringify(expression)}\n      message: the rule\n`;
}

const ALICE: TransferUser = { id: 'u-alice', username: 'alice', fullName: 'Alice', permission: 'User', status: 'Active' };
const DETAILS: TransferUserDetails = { ...ALICE, notes: 'was a user', folderQuota: 0 };
const LIVE: LiveState = {
  transfer: {
    users: indexByName(
      [ALICE],
      (u) => u.username,
      (u) => u.id,
    ),
    userDetails: new Map([[DETAILS.id, DETAILS]]),
    folders: new Map(),
  },
};

async function check(expression: string) {
  const dir = testdir({ 'user.yaml': USER, 'policy.yaml': policy(expression) });
  const set = await loadManifests(['.'], { cwd: dir });
  expect(set.diagnostics).toEqual([]);
  const { plan } = planFrom([...set.manifests], LIVE, { cwd: dir });
  return evaluatePolicies(plan, set.policies, set.manifests, dir, liveSpecs(plan.changes, LIVE));
}

describe('policies on users', () => {
  it('see the desired user as object and the live one as oldObject', async () => {
    expect(
      (await check("object.spec.permission == 'Admin' && oldObject.spec.permission == 'User' && oldObject.spec.notes == 'was a user'")).violations,
    ).toEqual([]);
    expect((await check("!(object.spec.permission in ['Admin', 'SysAdmin'])")).violations.map((v) => v.address)).toEqual(['User/alice']);
  });

  it('never see a password, not even its reference', async () => {
    expect((await check("object.spec.password == '(sensitive)' && !has(oldObject.spec.password)")).violations).toEqual([]);
  });
});
