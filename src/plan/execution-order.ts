import { folderDepth, folderKey, parentPath } from '../folder-path.js';
import { isPathNamed } from '../kinds/address.js';
import { kindOf, kindsInRank } from '../kinds/registry.js';
import { withDefined } from '../with-defined.js';
import { establishesFolderPath, isWriteAction } from './model.js';
import type { Change } from './model.js';

/**
 * The order apply runs a plan in, computed once, here, and carried by the plan (`Change.wave`,
 * `Change.needs`): apply follows it as given and only checks it (`checkExecutionOrder`).
 */

/**
 * Each write change of `changes` (in plan order) with its wave and the change it needs (pure);
 * the other changes with neither. Creates and updates run in the first wave; a folder below a
 * folder this plan creates or renames needs the change of the nearest such folder. Deletes run
 * after everything else, in waves: tasks, then ACLs, then folders deepest first. Waves are
 * numbered from 0 without gaps.
 */
export function scheduleChanges(changes: readonly Change[]): Change[] {
  const writes = changes.filter((c) => isWriteAction(c.action));
  const makers = folderMakers(writes);
  // Deletes in reverse rank order, one wave per kind; a path-named kind's deepest paths first, a wave per depth.
  const deleteOrder = [...kindsInRank()].reverse().map((definition) => definition.kind);
  const depthOf = (c: Change): number => (isPathNamed(c.kind) ? folderDepth(c.name) : 0);
  const maxDepth = Math.max(0, ...writes.map(depthOf));
  // A group that adds members this plan creates runs in a wave of its own after the creates.
  const rawWave = (c: Change): number =>
    c.action === 'delete' ? 2 + deleteOrder.indexOf(c.kind) * (maxDepth + 1) + maxDepth - depthOf(c) : createdMembers(c).length > 0 ? 1 : 0;
  const used = [...new Set(writes.map(rawWave))].sort((a, b) => a - b);
  const scheduled = changes.map((c): Change => {
    // A no-op has nothing to drop: kept as is (copying each of a large estate's no-ops cost 2 % of planning).
    if (!isWriteAction(c.action) && !('wave' in c) && !('needs' in c)) return c;
    const { wave: _wave, needs: _needs, ...rest } = c;
    if (!isWriteAction(c.action)) return rest;
    const needs = neededMaker(c, makers) ?? createdMembers(c)[0];
    return { ...rest, wave: used.indexOf(rawWave(c)), ...withDefined({ needs }) };
  });
  if (!writes.some((c) => createdMembers(c).length > 0)) return scheduled;
  // Such a group is listed after the first wave (a stable sort: the rest keep their order).
  return scheduled
    .map((c, i) => ({ c, i }))
    .sort((a, b) => (a.c.wave ?? 0) - (b.c.wave ?? 0) || a.i - b.i)
    .map(({ c }) => c);
}

/**
 * The addresses of the creates whose ids `c` sends (a group's members the plan creates, its kind
 * says: `KindDefinition.createsNeeded`), in the order it sends them. The change waits for the
 * first (`needs`) in a later wave, so that every create has run when it sends their ids; an id
 * whose create failed is then refused (`CreatedIds.require`), never sent.
 */
function createdMembers(c: Change): readonly string[] {
  return kindOf(c.kind).createsNeeded(c);
}

/**
 * Why apply cannot follow the order `changes` claim, one line each; empty when it can (pure).
 * The order is what `scheduleChanges` gives, and any order that keeps its promises: every write
 * change has a wave and nothing else has; changes are listed wave by wave; deletes come after
 * every create and update; and a folder change below a folder the plan creates or renames needs
 * exactly the change of the nearest such folder, which is listed before it in the same wave.
 */
export function checkExecutionOrder(changes: readonly Change[]): string[] {
  const problems: string[] = [];
  const writes = changes.filter((c) => isWriteAction(c.action));
  const makers = folderMakers(writes);
  const position = new Map(changes.map((c, i) => [c.address, i]));
  let lastWave = 0;
  let lastWriteWave = -1;
  let firstDeleteWave = Number.POSITIVE_INFINITY;
  changes.forEach((c, i) => {
    if (!isWriteAction(c.action)) {
      if (c.wave !== undefined || c.needs !== undefined) problems.push(`${c.address} is ${c.action}, so apply never runs it, but it has a place in the order`);
      return;
    }
    const wave = c.wave;
    if (wave === undefined || !Number.isInteger(wave) || wave < 0) {
      problems.push(`${c.address} has no wave`);
      return;
    }
    if (wave < lastWave) problems.push(`${c.address} (wave ${wave}) is listed after a change of wave ${lastWave}`);
    lastWave = Math.max(lastWave, wave);
    if (c.action === 'delete') firstDeleteWave = Math.min(firstDeleteWave, wave);
    else lastWriteWave = Math.max(lastWriteWave, wave);

    const creator = createdMembers(c)[0];
    if (creator !== undefined) {
      const j = position.get(creator);
      if (c.needs !== creator) problems.push(`${c.address} does not wait for ${creator}, which creates a member it adds`);
      else if (j !== undefined && (j > i || (changes[j]!.wave ?? wave) >= wave))
        problems.push(`${c.address} does not run after ${creator}, which creates a member it adds`);
      return;
    }
    const expected = neededMaker(c, makers);
    if (c.needs !== expected) {
      problems.push(
        expected === undefined
          ? `${c.address} waits for ${c.needs ?? ''}, which makes no folder above it`
          : `${c.address} does not wait for ${expected}, which makes the folder above it`,
      );
      return;
    }
    if (expected === undefined) return;
    const j = position.get(expected)!;
    const maker = changes[j]!;
    if (j > i) problems.push(`${c.address} is listed before ${expected}, which makes the folder above it`);
    else if (maker.wave !== wave) problems.push(`${c.address} and ${expected}, which makes the folder above it, are in different waves`);
  });
  if (firstDeleteWave <= lastWriteWave) problems.push('a delete runs in a wave with or before creates and updates');
  return problems;
}

/** Write changes that make a folder path exist (create, rename), by folder key → address. */
function folderMakers(writes: readonly Change[]): Map<string, string> {
  const makers = new Map<string, string>();
  for (const c of writes) if (establishesFolderPath(c)) makers.set(folderKey(c.name), c.address);
  return makers;
}

/** The address of the nearest folder above `c`'s that a change makes, for a folder create or update. */
function neededMaker(c: Change, makers: ReadonlyMap<string, string>): string | undefined {
  if (!isPathNamed(c.kind) || c.action === 'delete') return undefined;
  for (let p = parentPath(c.name); p !== undefined; p = parentPath(p)) {
    const maker = makers.get(folderKey(p));
    if (maker !== undefined) return maker;
  }
  return undefined;
}
