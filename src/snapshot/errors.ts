import { MftopsError } from '../errors.js';

/** A snapshot could not be saved, found, read or restored; the message says which and why. */
export class SnapshotError extends MftopsError {}

/**
 * A stored snapshot does not match what `snapshot.json` says (a changed byte, a truncated or
 * missing file, XML that is no longer well-formed). `file` names the file inside the snapshot
 * folder; the message names it too.
 */
export class SnapshotIntegrityError extends SnapshotError {
  readonly file: string;
  constructor(message: string, file: string) {
    super(message);
    this.file = file;
  }
}
