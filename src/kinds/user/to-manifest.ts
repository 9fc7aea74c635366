import type { TransferUser, TransferUserDetails } from '../../services/transfer/types.js';
import { USER_AUTH_METHODS, USER_EMAIL_FORMATS, USER_NOTIFICATIONS, USER_PERMISSIONS, USER_STATUSES } from '../../vocabulary.js';
import { formatAddress } from '../address.js';
import type { ManifestDraft } from '../kind-import.js';
import { USER_FIELDS } from './plan.js';
import type { UserField } from './plan.js';

/**
 * What a new account has when nobody sets the field (the values `mftops import` leaves out).
 * `permission` and `status` are not here: they are always written, default or not, since an
 * account promoted or suspended on the server is the drift people most need to hear about.
 */
const SERVER_DEFAULTS: Readonly<Partial<Record<UserField, string | number | boolean>>> = {
  email: '',
  notes: '',
  authMethod: 'MOVEitOnly',
  emailFormat: 'HTML',
  receivesNotification: 'ReceivesNotifications',
  folderQuota: 0,
  forceChangePassword: false,
};

/** The words of the enumerated fields, as the schema spells them. */
const ENUMERATIONS: Readonly<Partial<Record<UserField, readonly string[]>>> = {
  permission: USER_PERMISSIONS,
  status: USER_STATUSES,
  authMethod: USER_AUTH_METHODS,
  emailFormat: USER_EMAIL_FORMATS,
  receivesNotification: USER_NOTIFICATIONS,
};

/**
 * A live user as a minimal manifest `spec` (pure): the managed fields that differ from a new
 * account's, from its details when they were read (else from the list record). Never a password
 * (no read returns one), never `homeFolderPath` (create only; the server keeps only its id).
 */
export function userSpecOf(user: TransferUser, details?: TransferUserDetails): Record<string, string | number | boolean> {
  const record: Record<string, unknown> = { ...user, ...details };
  const spec: Record<string, string | number | boolean> = {};
  for (const field of USER_FIELDS) {
    const value = record[field];
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') continue;
    if (field !== 'permission' && field !== 'status' && SERVER_DEFAULTS[field] === value) continue;
    if (field === 'fullName' && value === '') continue;
    const words = ENUMERATIONS[field];
    if (words === undefined) spec[field] = value;
    else {
      // The manifest's spelling; a word the schema does not have (`Anonymous`) is left out, unmanaged.
      const word = words.find((w) => typeof value === 'string' && w.toLowerCase() === value.toLowerCase());
      if (word !== undefined) spec[field] = word;
    }
  }
  return spec;
}

/** A user by its username: the fields that differ from a new account's (`userSpecOf`); never a password. */
export function userManifestOf(user: TransferUser, details?: TransferUserDetails): ManifestDraft {
  return {
    kind: 'User',
    name: user.username,
    address: formatAddress('User', user.username),
    metadataName: user.username,
    spec: userSpecOf(user, details),
    notes: [],
  };
}
