import type { SourcePosition } from './diagnostics.js';

/**
 * The desired-state model: what the manifests say, after schema validation and normalisation.
 * `schemas/*.schema.json` is the source of truth for the fields; these types mirror it.
 *
 * Normalisation done by the loader, so later stages see one form only:
 * - 0/1 fields hold `0` or `1` (a manifest may write `true`/`false`);
 * - `Parameters` values are `{value: string, secret: boolean}` (a manifest may write a bare string
 *   or number; a `${env:}`/`${file:}` value is always secret);
 * - secrets (`Password`, secret parameter values) stay reference text such as `${env:NAME}`,
 *   never resolved here (`parseSecretRef` in src/secret.ts reads them).
 * References stay by name (`Host`, `Script`, `DateListRef`, users, groups) or by id when the
 * manifest gives an id (`HostID`, `ScriptID`); plan resolves names against each server.
 */

// The lists live with the other closed vocabularies, where the diagnostics (a leaf) can read them.
import type { ManifestKind } from '../vocabulary.js';
export { DOCUMENT_KINDS, MANIFEST_KINDS, type DocumentKind, type ManifestKind } from '../vocabulary.js';
import type { SourceMap } from '../kinds/model-base.js';

// Each kind's types live in its folder (src/kinds/<kind>/model.ts) and `KindTypes` lists them; the
// `Manifest` union is derived there. Re-exported here under their old names.
export type { JsonPath, ManifestBase, SourceMap } from '../kinds/model-base.js';
export type { Manifest } from '../kinds/kind-types.js';
export type { FolderEntry, FolderPermissionsManifest, FolderPermissionsSpec } from '../kinds/folder-permissions/model.js';
export type { GroupManifest, GroupSpec } from '../kinds/group/model.js';
export type { ResourceGroupAclManifest, ResourceGroupAclSpec } from '../kinds/resource-group-acl/model.js';
export type {
  Comparison,
  Criteria,
  DestinationStep,
  Flag,
  HostType,
  Interval,
  Parameter,
  Parameters,
  ProcessStep,
  Schedule,
  SourceStep,
  Step,
  StepKind,
  TaskManifest,
  TaskSpec,
} from '../kinds/task/model.js';
export { stepKindOf } from '../kinds/task/model.js';
export type { UserManifest, UserSpec } from '../kinds/user/model.js';

export const API_VERSION = 'mftops/v1';

/**
 * A variable's value (`environments.<name>.vars` of mftops.yaml); a manifest value that is only
 * `${var:NAME}` takes its type. Variables are not secrets.
 */
export type VarValue = string | number | boolean | readonly (string | number | boolean)[];

// ---------------------------------------------------------------------------------------- Policy

/** A `kind: Policy` document (schemas/policy.schema.json): rules checked on every plan, never a resource. */
export interface PolicyManifest {
  readonly kind: 'Policy';
  readonly name: string;
  readonly spec: PolicySpec;
  readonly source: SourcePosition;
  /** Positions of the document, for diagnostics at `spec.validations[i].expression`. */
  readonly sourceMap: SourceMap;
}

/** `deny`: a violation stops plan (exit 1, no plan file); `warn`: shown only. */
export type PolicySeverity = 'deny' | 'warn';

/** Change actions a policy may match (the write actions of a plan). */
export type PolicyAction = 'create' | 'update' | 'delete' | 'replace';

export interface PolicySpec {
  readonly severity: PolicySeverity;
  /** Which changes are checked; an absent field (or no `match`) matches every change. */
  readonly match?: {
    readonly kinds?: readonly ManifestKind[];
    /** Globs on the object's name (`*`: any run of characters, case ignored). */
    readonly names?: readonly string[];
    readonly actions?: readonly PolicyAction[];
  };
  /** Each must evaluate to `true`; `message` is shown with a violation. */
  readonly validations: readonly { readonly expression: string; readonly message: string }[];
}

// ------------------------------------------------------------------------------ The vocabularies

/** Full day names: manifests may write `Mon` too, and normalisation makes it `Monday`. */
export type { DayOfWeek } from '../vocabulary.js';
export { ACL_PERMISSIONS, FOLDER_PERMISSIONS, SHARE_PERMISSIONS } from '../vocabulary.js';
export type { AclPermission, FolderPermission, SharePermission } from '../vocabulary.js';
export type { UserAuthMethod, UserEmailFormat, UserNotification, UserPermission, UserStatus } from '../vocabulary.js';
