import { MftopsError } from '../errors.js';

/**
 * The ids of the objects one apply writes, by the address of the change that writes each:
 * an existing object's id from the plan (`Change.liveId`) from the moment its change starts, and
 * an object the apply creates once its create returns or its re-find finds it. A later change
 * that refers to an object of the same apply (`Change.needs`: a folder under a folder this plan
 * creates) takes its id from here at write time, never from a name looked up afresh.
 *
 * Addresses compare without regard to case, as both servers compare names and paths. Pure: the
 * executor writes it as changes run; verification fills it from the results.
 */
export class CreatedIds {
  private readonly ids = new Map<string, string>();

  /** `address`'s object has `id` (an empty id is not one: nothing is recorded). */
  record(address: string, id: string): void {
    if (id !== '') this.ids.set(keyOf(address), id);
  }

  /** The id of `address`'s object, if a change of this apply has made it known. */
  idOf(address: string): string | undefined {
    return this.ids.get(keyOf(address));
  }

  /**
   * The id of `address`'s object, for a write that refers to it; throws (the write is not sent)
   * when no change of this apply made it known: the change that makes it failed or never ran.
   */
  require(address: string, purpose: string): string {
    const id = this.idOf(address);
    if (id === undefined) throw new MissingIdError(`cannot ${purpose}: ${address} has no id (the change that makes it did not succeed)`);
    return id;
  }
}

/** A write that refers to an object of the same apply whose id is not known: it is refused, not sent. */
export class MissingIdError extends MftopsError {}

function keyOf(address: string): string {
  return address.toLowerCase();
}
