import type { SourceMap, VarValue } from '../manifest/types.js';
export type { VarValue } from '../manifest/types.js';
import type { Secret, SecretRef } from '../secret.js';
import type { ChangeWindowSettings, ScheduleSettings } from '../schedule/model.js';

export type { ServiceName } from '../vocabulary.js';
import type { ManifestKind, ServiceName } from '../vocabulary.js';

/**
 * Kinds that `prune` may name (DESIGN.md §3): every resource kind is prunable (`KindDefinition.prunable`).
 * The configuration is checked against `prunableKind` of schemas/kinds.schema.json, which
 * test/kinds/schema-kinds.test.ts holds to the registry's `PRUNABLE_KINDS`; a kind that could not be
 * pruned would change both.
 */
export type PrunableKind = ManifestKind;

/**
 * A service as written in `mftops.yaml`, references unresolved. Loading a configuration never reads
 * an environment variable or a secret file: that happens in `resolveEnvironmentServices`, only for the
 * environment and service a command actually uses.
 */
export interface ServiceSettings {
  /** Base URL, checked: https, or http on a loopback host. No trailing slash. */
  readonly url: string;
  /** A literal account name, or a reference. */
  readonly username: string | SecretRef;
  /** Always a reference: the schema refuses literal passwords. */
  readonly password: SecretRef;
  /** Absolute path of an extra CA bundle (PEM). */
  readonly caFile?: string;
}

/** What counts as managed in an environment; objects in scope that no manifest names are unmanaged. */
export interface Scope {
  readonly taskGroups: readonly string[];
  readonly folders: readonly string[];
  /** Username masks (`*` any run of characters, case ignored) of the transfer users that are managed: prune and import of Users look only at these. Absent: none. */
  readonly users?: readonly string[];
}

export interface EnvironmentSettings {
  readonly name: string;
  readonly automation?: ServiceSettings;
  readonly transfer?: ServiceSettings;
  /**
   * `automation.transferHosts`: names of the automation hosts that point at this environment's
   * transfer service. Task steps on them (and on a host whose `Host` is the transfer URL's
   * hostname) are checked against the transfer server at plan time: the folder exists, the
   * host's account has the rights the step needs. Absent: only the hostname match applies.
   */
  readonly transferHosts?: readonly string[];
  /** Absolute paths of manifest files or folders. */
  readonly manifests: readonly string[];
  /**
   * `vars`: the values of `${var:NAME}` in this environment's manifests (absent: none). Not
   * secrets: plan files record the ones a plan used, and `show` prints them.
   */
  readonly vars?: Readonly<Record<string, VarValue>>;
  readonly scope: Scope;
  readonly prune: readonly PrunableKind[];
  /** `drift:` settings; absent when the environment has none. */
  readonly drift?: DriftSettings;
  /** `privilegedAccounts:`, with its defaults filled in (`DEFAULT_PRIVILEGED_ACCOUNTS` when the environment has none). */
  readonly privilegedAccounts?: PrivilegedAccountSettings;
  /** `changeWindows:` (issue 28): when apply may write; absent: any time. */
  readonly changeWindows?: ChangeWindowSettings;
  /** `schedule:` (issue 28): how plan judges the next runs of the tasks it changes. */
  readonly schedule?: ScheduleSettings;
}

/**
 * The guard on privileged accounts and the sign-on report of `mftops drift` (issue 26): which
 * privileged accounts may exist without a manifest, where the automation administrators are, and
 * when a transfer account's last sign-on is old enough to be listed.
 */
export interface PrivilegedAccountSettings {
  /** `allowUnmanaged`: accounts allowed to exist unmanaged (service accounts), in file order. */
  readonly allowUnmanaged: readonly AllowedAccount[];
  /** `automationAdminGroup`: the automation user group whose members are administrators (default `Administrators`). */
  readonly automationAdminGroup: string;
  /** `staleSignOnDays`: a last sign-on older than this many days is listed (default 90); 0: only accounts that never signed on. */
  readonly staleSignOnDays: number;
}

/** One entry of `privilegedAccounts.allowUnmanaged`. */
export interface AllowedAccount {
  /** The username, compared case-insensitively. */
  readonly name: string;
  /** The service it is allowed on; absent: either. */
  readonly service?: ServiceName;
  /** Why it may exist unmanaged; shown in reports. */
  readonly reason?: string;
  /** `FILE:LINE:COL` of the entry in mftops.yaml. */
  readonly where: string;
}

/** What an environment without `privilegedAccounts:` gets. */
export const DEFAULT_PRIVILEGED_ACCOUNTS: PrivilegedAccountSettings = { allowUnmanaged: [], automationAdminGroup: 'Administrators', staleSignOnDays: 90 };

/** How `mftops drift` judges this environment. */
export interface DriftSettings {
  /** Acknowledged drift: differences that are known and accepted (for a while). */
  readonly ignore: readonly DriftIgnoreRule[];
}

/**
 * One acknowledged difference (`drift.ignore[]`). A field difference (or a whole object, when
 * `path` is absent) that the rule matches is reported as acknowledged instead of as drift, until
 * the rule expires.
 */
export interface DriftIgnoreRule {
  /** `Kind/name` glob, `*` = any run of characters: `Task/Nightly cleanup`, `FolderPermissions/Distribution/*`. */
  readonly address: string;
  /**
   * Field-path glob in the plan's display form (`Schedules.*`, `Info.Description`,
   * `entries.group:Acme Partners`); it also matches everything below a matching field. Absent:
   * the whole object (any difference, missing or unmanaged).
   */
  readonly path?: string;
  /** `YYYY-MM-DD`, the last day the acknowledgement holds (UTC); absent: no end. */
  readonly until?: string;
  /** Why the difference is accepted; shown in reports. */
  readonly reason?: string;
  /** `FILE:LINE:COL` of the rule in mftops.yaml, for reports. */
  readonly where: string;
}

/** A loaded `mftops.yaml`. All paths in it are absolute (resolved from the file's folder). */
export interface MftopsConfig {
  /** Absolute path of the file it came from. */
  readonly file: string;
  /** `sha256:HEX` of the file's bytes as loaded: an edit of it (drift --adopt) refuses a file changed since. */
  readonly sha256?: string;
  readonly environments: ReadonlyMap<string, EnvironmentSettings>;
  readonly snapshots: { readonly dir: string; readonly keep: number };
  /**
   * `secrets.fileRoots`: absolute folders, beside the folder of this file, that a manifest's
   * `${file:}` may read (e.g. /run/secrets); empty when not set. This file's own credentials are
   * not confined.
   */
  readonly secrets: { readonly fileRoots: readonly string[] };
  /** `limits.manifestMegabytes`, in bytes; absent: the default (DEFAULT_MANIFEST_MEGABYTES). */
  readonly maxManifestBytes?: number;
  /** Where everything is written in the file, for problems found after loading (a variable that is not set). */
  readonly sourceMap: SourceMap;
}

/** A service with its credentials resolved, ready for a client. */
export interface ResolvedService {
  readonly name: ServiceName;
  readonly url: string;
  readonly username: string;
  readonly password: Secret;
  readonly caFile?: string;
}
