import type { UserManifest } from '../../manifest/types.js';
import type { DesiredUser } from '../../resources/model.js';
import type { Resolution } from '../kind.js';

/** A user names no other object: its desired object is its manifest (pure; nothing to report). */
export function resolveUser(manifest: UserManifest): Resolution<DesiredUser> {
  return { value: { manifest, username: manifest.name, resolved: [] }, diagnostics: [] };
}
