import { PASSWORD_FIELD, sameScalar } from '../../resources/common.js';
import { isRecord } from '../../is-record.js';
import { isVolatileTaskField } from './plan.js';
import { parseSecretRef } from '../../secret.js';

const SUPPRESSED = '(suppressed)';

/**
 * Does the object read back hold what a request sent? Used after a write whose outcome is
 * unknown (did it take effect?) and to verify writes when the manifests moved on. Only what was
 * sent is compared, the way the server means it (`1` and `true`, `"12"` and `12`): fields the
 * server adds, server-numbered `ID`/`NextEID`, read-only fields, passwords and secret parameters
 * (write-only: they read back suppressed) and reference text are not compared.
 */
export function holdsSent(sent: unknown, read: unknown): boolean {
  if (sent === undefined) return true;
  if (typeof sent === 'string' && parseSecretRef(sent) !== undefined) return true;
  if (isRecord(sent)) {
    if (!isRecord(read)) return false;
    for (const [key, value] of Object.entries(sent)) {
      if (key === 'ID' || key === 'NextEID' || PASSWORD_FIELD.test(key) || isVolatileTaskField(key)) continue;
      if (key === 'Parameters') {
        if (!parametersHold(value, read[key])) return false;
      } else if (!holdsSent(value, read[key])) return false;
    }
    return true;
  }
  if (Array.isArray(sent)) {
    if (!Array.isArray(read)) return sent.length === 0 && (read === undefined || read === null);
    if (read.length !== sent.length) return false;
    if (sent.every((x, i) => holdsSent(x, read[i]))) return true;
    // Scalar lists the server may keep in another order (days of the week).
    return sent.every((x) => !isRecord(x) && !Array.isArray(x) && read.some((y) => holdsSent(x, y)));
  }
  if (sent === null) return read === null || read === undefined;
  return sameScalar(sent, read);
}

/** Parameters by name; a secret one (sent with `DisplayValue: "(suppressed)"`) is write-only. */
function parametersHold(sent: unknown, read: unknown): boolean {
  if (!isRecord(sent)) return holdsSent(sent, read);
  const have = isRecord(read) ? read : {};
  for (const [name, p] of Object.entries(sent)) {
    if (isRecord(p) && p.DisplayValue === SUPPRESSED) continue;
    const h = have[name];
    const want = isRecord(p) ? p.value : p;
    const got = isRecord(h) ? h.value : h;
    if (h === undefined || !holdsSent(want, got)) return false;
  }
  return true;
}
