import { mapWithConcurrency } from '../../map-with-concurrency.js';
import type { UserManifest } from '../../manifest/types.js';
import type { JsonObject, JsonValue } from '../../resources/model.js';
import type { NewUser, TransferUser, TransferUserDetails } from '../../services/transfer/types.js';
import { describeNeededChange, liveIdOf, needReader, planBug, readOrNull, StepError, transferWriter } from '../kind-io.js';
import type { KindIo, StepContext } from '../kind-io.js';
import { fingerprintUser, isTextField } from './plan.js';
import { readUsersForImport } from './io-import.js';

/**
 * The requests of a user change. `address` is the change's: a patch takes the user's id from the
 * table of the apply's ids when it runs (the plan's live id, or the id the create returned).
 * Bodies hold a password only as its reference text until apply resolves it (`mapPayloadStrings`).
 */
export type UserStep =
  /** POST /users with AddUserModel; `username` finds the user again after an unknown outcome. */
  | { readonly op: 'user-create'; readonly address: string; readonly username: string; readonly body: JsonObject }
  /** PATCH /users/{id} with the fields that differ (UserPatchModel). */
  | { readonly op: 'user-patch'; readonly address: string; readonly username: string; readonly body: JsonObject }
  | { readonly op: 'user-delete'; readonly address: string; readonly username: string; readonly id: string };

/** The users now: the list (re-read), by id and lower-cased username, and the details of the users the plan updates, by id (null: gone). */
export interface UserTouched {
  readonly byId: ReadonlyMap<string, TransferUser>;
  readonly byName: ReadonlyMap<string, TransferUser>;
  readonly details: ReadonlyMap<string, TransferUserDetails | null>;
}

/** Fields that cannot be read back: never compared when a write is confirmed. */
const WRITE_ONLY = ['password', 'homeFolderPath', 'username'];

export const USER_IO: KindIo<'User'> = {
  kind: 'User',
  idsOf: (id) => ({ user: id }),
  idIn: (ids) => ids.user,

  readAhead: 'none',
  liveNeeds(manifests, scope, prune) {
    const users = manifests.filter((m): m is UserManifest => m.kind === 'User');
    const pruned = prune.includes('User') && (scope.users ?? []).length > 0;
    if (users.length === 0 && !pruned) return {};
    return { transfer: { users: true, userDetails: users.flatMap((m) => [m.name, ...m.previousNames]) } };
  },

  planSteps(change, payload) {
    const address = change.address;
    if (change.action === 'delete') return [{ op: 'user-delete', address, username: change.name, id: liveIdOf(change) }];
    if (payload?.kind !== 'User') return planBug(change, 'no user payload');
    const steps: UserStep[] = [];
    switch (change.action) {
      case 'create':
        if (payload.create === undefined) return planBug(change, 'no user to create');
        steps.push({ op: 'user-create', address, username: payload.username, body: payload.create });
        break;
      case 'update':
        liveIdOf(change);
        break;
      default:
        return planBug(change, `action ${change.action}`);
    }
    if (payload.patch !== undefined && Object.keys(payload.patch).length > 0)
      steps.push({ op: 'user-patch', address, username: payload.username, body: payload.patch });
    return steps;
  },

  async sendStep(step, ctx) {
    switch (step.op) {
      case 'user-create': {
        const created = await transferWriter(ctx).createUser(step.body as unknown as NewUser);
        return { user: created.id };
      }
      case 'user-patch': {
        const id = userId(ctx, step);
        await transferWriter(ctx).patchUser(id, step.body);
        return { user: id };
      }
      case 'user-delete':
        await transferWriter(ctx).deleteUser(step.id);
        return { user: step.id };
      default: {
        const never: never = step;
        throw new Error(`unknown step ${String(never)}`);
      }
    }
  },

  async confirmStep(step, ctx) {
    switch (step.op) {
      case 'user-create': {
        const found = await transferWriter(ctx).findUser(step.username);
        if (!found) return { kind: 'resend', step };
        // Created (with its password): never a second create; what differs is patched.
        const details = await transferWriter(ctx).getUser(found.id);
        const differs = differingFields(step.body, details);
        if (differs === undefined) return { kind: 'done', ids: { user: found.id } };
        // The create took effect: the follow-up patch writes to the account it made, by its id.
        ctx.created.record(step.address, found.id);
        return { kind: 'resend', step: { op: 'user-patch', address: step.address, username: step.username, body: differs } };
      }
      case 'user-patch': {
        const id = userId(ctx, step);
        const details = await readOrNull(() => transferWriter(ctx).getUser(id));
        if (!details) return { kind: 'fail', message: `user ${step.username} (id ${id}) no longer exists` };
        if (details.username.toLowerCase() !== step.username.toLowerCase())
          return { kind: 'fail', message: `user id ${id} is now ${details.username}, not ${step.username}` };
        // A password cannot be read back: after an unknown outcome it is sent again (the same value).
        if (step.body.password !== undefined) return { kind: 'resend', step };
        return differingFields(step.body, details) === undefined ? { kind: 'done', ids: { user: id } } : { kind: 'resend', step };
      }
      case 'user-delete': {
        const user = await readOrNull(() => transferWriter(ctx).getUser(step.id));
        return user ? { kind: 'resend', step } : { kind: 'done', ids: { user: step.id } };
      }
      default: {
        const never: never = step;
        throw new Error(`unknown step ${String(never)}`);
      }
    }
  },

  // Verification reads every field back but the password, which no read returns.
  verifySteps: (change) =>
    USER_IO.planSteps(change, change.payload).map((step) => (step.op === 'user-delete' ? step : { ...step, body: withoutWriteOnly(step.body) })),

  async readTouched(changes, readers, parallelism) {
    const transfer = needReader(readers.transfer, 'transfer');
    const users = await transfer.listUsers({ fresh: true });
    const byId = new Map(users.map((u) => [u.id, u]));
    const byName = new Map<string, TransferUser>();
    for (const u of users) if (!byName.has(u.username.toLowerCase())) byName.set(u.username.toLowerCase(), u);
    // Updates were planned from the details: those are read again; creates and deletes need only the list.
    const updated = [...new Set(changes.filter((c) => c.action === 'update' && c.liveId !== undefined && byId.has(c.liveId)).map((c) => c.liveId!))];
    const read = await mapWithConcurrency(updated, parallelism, (id) => readOrNull(() => transfer.getUser(id)));
    return { byId, byName, details: new Map(updated.map((id, i) => [id, read[i] ?? null])) };
  },

  findStale(c, now) {
    if (c.action === 'create') {
      const other = now.byName.get(c.name.toLowerCase());
      return other ? [{ how: 'appeared', detail: `a user named ${other.username} now exists (id ${other.id})` }] : [];
    }
    const user = c.liveId !== undefined ? now.byId.get(c.liveId) : undefined;
    if (!user) return [{ how: 'gone', detail: `user id ${c.liveId ?? '?'}` }];
    const expected = c.previousName ?? c.name;
    if (user.username.toLowerCase() !== expected.toLowerCase()) return [{ how: 'changed', detail: `user id ${user.id} is now named ${user.username}` }];
    const details = now.details.get(user.id);
    if (c.action === 'update' && !details) return [{ how: 'gone', detail: `user ${user.username} (id ${user.id})` }];
    return fingerprintUser(user, c.action === 'update' ? (details ?? undefined) : undefined) !== c.fingerprint ? [{ how: 'changed' }] : [];
  },

  describeLeftUndone: (change) => (change.action === 'create' ? 'the user was created, but not all of its settings were set' : undefined),
  describeNeeded: describeNeededChange,

  // Only the password is a reference: a note or a name that reads `${env:…}` is sent as written.
  mapPayloadStrings(payload, walk) {
    if (payload.kind !== 'User') return payload;
    const mapped = (body: JsonObject | undefined): JsonObject | undefined =>
      body === undefined || typeof body.password !== 'string' ? body : { ...body, password: walk(body.password) };
    const create = mapped(payload.create);
    const patch = mapped(payload.patch);
    return { kind: 'User', username: payload.username, ...(create ? { create } : {}), ...(patch ? { patch } : {}) };
  },
  readForImport: readUsersForImport,
};

/** The id this apply knows for the user of the step's change (the plan's, or its create's). */
function userId(ctx: StepContext, step: { readonly address: string; readonly username: string }): string {
  const id = ctx.created.idOf(step.address);
  if (id === undefined) throw new StepError(`user ${step.username} has no known id (was it created?)`);
  return id;
}

function withoutWriteOnly(body: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(body).filter(([k]) => !WRITE_ONLY.includes(k)));
}

/** The readable fields of `body` the user does not hold (undefined: it holds them all); enumerations compare without case. */
function differingFields(body: JsonObject, details: TransferUserDetails): JsonObject | undefined {
  const out: Record<string, JsonValue> = {};
  for (const [k, sent] of Object.entries(withoutWriteOnly(body))) {
    const read = (details as Record<string, unknown>)[k];
    // As the plan compares: the enumerated words without case, texts (fullName, email, notes) exactly.
    const same = read === sent || (typeof read === 'string' && typeof sent === 'string' && !isTextField(k) && read.toLowerCase() === sent.toLowerCase());
    if (!same) out[k] = sent;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
