import { describe, expect, it } from 'vitest';
import type { EnvironmentSettings } from '../../src/config/model.js';
import { choosePrune } from '../../src/app/environment.js';
import { messagesOf, recordingContext } from './helpers.js';

const env = (prune: EnvironmentSettings['prune']): EnvironmentSettings => ({
  name: 'prod',
  manifests: ['/repo/manifests/common', '/repo/manifests/prod'],
  scope: { taskGroups: ['Finance'], folders: ['/Distribution'] },
  prune,
});
const ALL = ['Task', 'ResourceGroupAcl', 'FolderPermissions'] as const;

describe('choosePrune: prune only over the whole picture', () => {
  it("prunes as configured without paths, or with paths that are the environment's own manifests (in any order, written any way)", () => {
    const ctx = recordingContext('/repo');
    expect(choosePrune(env(ALL), undefined, undefined, ctx)).toEqual({ kinds: ALL, partial: false });
    expect(choosePrune(env(ALL), ['manifests/prod/', './manifests/common'], undefined, ctx)).toEqual({ kinds: ALL, partial: false });
  });

  it('prunes nothing with part of the manifests, and says why and what it would have pruned', () => {
    const ctx = recordingContext('/repo');
    expect(choosePrune(env(['Task', 'FolderPermissions']), ['manifests/prod/access'], undefined, ctx)).toEqual({
      kinds: [],
      partial: true,
      off: { reason: 'partial-manifests', kinds: ['Task', 'FolderPermissions'] },
    });
    // A superset is not the environment's picture either (it may hold another environment's manifests).
    expect(choosePrune(env(ALL), ['manifests'], undefined, ctx)).toMatchObject({ kinds: [], partial: true });
  });

  it('prunes anyway with --prune, and nothing with --no-prune', () => {
    const ctx = recordingContext('/repo');
    expect(choosePrune(env(ALL), ['manifests/prod/access'], true, ctx)).toEqual({ kinds: ALL, partial: false });
    expect(choosePrune(env(ALL), undefined, false, ctx)).toEqual({ kinds: [], partial: false, off: { reason: 'disabled', kinds: ALL } });
    expect(choosePrune(env(ALL), ['manifests/prod/access'], false, ctx)).toEqual({ kinds: [], partial: true, off: { reason: 'disabled', kinds: ALL } });
    expect(ctx.events).toEqual([]);
  });

  it('says nothing is off when the environment prunes nothing; --prune then warns that it does nothing', () => {
    const ctx = recordingContext('/repo');
    expect(choosePrune(env([]), ['manifests/prod/access'], undefined, ctx)).toEqual({ kinds: [], partial: true });
    expect(ctx.events).toEqual([]);
    expect(choosePrune(env([]), undefined, true, ctx)).toEqual({ kinds: [], partial: false });
    expect(messagesOf(ctx.events)).toEqual(['warning: --prune has no effect: environment "prod" prunes nothing (it has no prune: list)']);
  });
});
