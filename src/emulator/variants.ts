import { ConfigError } from '../errors.js';
import { suggestName } from '../manifest/suggest.js';
import { PROFILES } from './profiles.js';
import type { Profile } from './profiles.js';

/**
 * One switch of the register `docs/server-variants.md`: a point the API references leave open,
 * and the readings the emulator can serve of it.
 */
export interface VariantSwitch {
  /** The register rows the switch serves (`A-3`, `B-1`…). */
  readonly register: string;
  /** Every reading the emulator serves; the first is the default (what `current` answers). */
  readonly values: readonly [string, string, ...string[]];
  /**
   * The reading of the `divergent` set when there are more than two (with two, the second).
   * Chosen as the one furthest from the default: the reading a client written for the default
   * is least likely to read right by accident.
   */
  readonly divergent?: string;
  /** One line: what the switch changes, and, with three readings, why `divergent` takes its pick. */
  readonly description: string;
  /**
   * Readings no faithful server gives (a broken or hostile answer mftops must refuse, not read):
   * never part of a named set, and not round-tripped by the fidelity tests.
   */
  readonly hostile?: true;
}

/**
 * Every switch of the register, one per row that has one (the "Emulator switch" column). The
 * switches act at the wire edge only: the stored state has one form, answers are encoded into the
 * switch's reading and request bodies decoded from it.
 */
export const VARIANT_SWITCHES = {
  'automation.basePath': {
    register: 'A-1',
    values: ['api', 'webadmin'],
    description: 'the automation API is under /automation/api/v1, or under /automation/webadmin/api/v1 (the other path answers 404)',
  },
  'automation.ids': {
    register: 'A-2, A-21',
    values: ['string', 'number'],
    description:
      'automation ids in answers (task, step, schedule, host, script, date list, parameter, ACL ids and the references to them) are strings, or JSON numbers',
  },
  'automation.flags': {
    register: 'A-3, A-21',
    values: ['number', 'boolean', 'string'],
    divergent: 'string',
    description:
      '0/1 fields of tasks, schedules, steps and ACL Permissions are 0/1, true/false, or "0"/"1"; divergent: "0"/"1" ("0" is truthy, so a 0/1 reader testing truth reads it wrong)',
  },
  'automation.integers': {
    register: 'A-4',
    values: ['number', 'string'],
    description:
      'integer fields and numeric enums of steps and schedules (RetryCount, DeleteOrig, SyDel, FolderType, Multi, IsDest, Rsm…) are numbers, or digit strings',
  },
  'automation.group': {
    register: 'A-5',
    values: ['list', 'string'],
    description: "a task's Group with exactly one name is a list, or that name as a string (several names stay a list, none is left out)",
  },
  'automation.empty': {
    register: 'A-6',
    values: ['present', 'absent'],
    description: 'empty lists, objects and strings in task answers are present, or left out',
  },
  'automation.days': {
    register: 'A-8',
    values: ['long', 'short'],
    description: "a schedule's DayOfWeek holds Monday…Sunday, or Mon…Sun (on input only the answered form)",
  },
  'automation.times': {
    register: 'A-9',
    values: ['padded', 'unpadded', 'seconds'],
    divergent: 'seconds',
    description: 'StartTime/EndTime are 09:05, 9:05, or 09:05:00; divergent: 09:05:00 (a third component, not only a dropped zero)',
  },
  'automation.dateListRef': {
    register: 'A-11',
    values: ['datelistid', 'id', 'both', 'string'],
    divergent: 'string',
    description:
      "a schedule's DateListRef items are {DateListID}, {ID: date list id}, {ID: the reference's own number, DateListID}, or a bare id; divergent: the bare id (not even an object)",
  },
  'automation.parameters': {
    register: 'A-12',
    values: ['map', 'list'],
    description: 'task and Process-step Parameters are a map {name: {value, DisplayValue}}, or {Parameter: [{Name, value}]}',
  },
  'automation.stepKeys': {
    register: 'A-14',
    values: ['short', 'mic'],
    description: 'step keys in answers are Source, Process, Destination…, or MicSourceType, MicProcessType, MicDestinationType…',
  },
  'automation.stepPasswords': {
    register: 'A-15',
    values: ['suppressed', 'omitted'],
    description: 'a stored Source/Destination Password is answered as (suppressed), or left out',
  },
  'automation.hostType': {
    register: 'A-16',
    values: ['siLock', 'xferLock'],
    description: 'the transfer-server host type is spelled siLock, or xferLock (the other spelling is refused)',
  },
  'automation.hostGet': {
    register: 'A-17',
    values: ['flat', 'wrapped'],
    description: 'GET /hosts/{id} answers the host flat, or wrapped {"<type>": {…}}',
  },
  'automation.scheduler': {
    register: 'A-19',
    values: ['enabled', 'Enabled', 'status'],
    divergent: 'status',
    description: 'GET /tasks/scheduler answers {enabled}, {Enabled}, or {status: "running"|"stopped"}; divergent: status (no boolean at all)',
  },
  'automation.running': {
    register: 'A-33',
    values: ['reference', 'camel'],
    description:
      'GET /tasks/running items are {TaskID, TaskName, NominalStart, TimeStarted, Status, Scheduled: 0|1}, or camelCase {taskId, taskName, nominalStart, timeStarted, status, scheduled: boolean}',
  },
  'automation.taskAnswer': {
    register: 'A-20',
    values: ['task', 'id', 'empty'],
    divergent: 'empty',
    description: 'POST /tasks (201) and PUT /tasks/{id} (200) answer the task, {ID} only, or no body (PUT then 204); divergent: no body',
  },
  'automation.userGroupMembers': {
    register: 'A-28',
    values: ['Members', 'objects', 'absent'],
    divergent: 'objects',
    description:
      "GET /usergroups and /usergroups/{name} give a group's members as Members: [username…], as Users: [{Username}…] (one member: the object alone, not a list), or not at all; divergent: objects (another field, objects, and a list that is not always a list)",
  },
  'automation.timeZone': {
    register: 'A-30',
    values: ['utc', 'windows', 'iana', 'bias'],
    divergent: 'bias',
    description:
      "GET /info's serverTimezoneInfo names UTC, a Windows zone (W. Europe Standard Time), an IANA zone (Europe/Berlin), or a zone no table knows with its bias (-60); divergent: bias (only the fixed offset is usable)",
  },
  'automation.envelope': {
    register: 'B-1, A-22',
    values: ['paging', 'bare'],
    description: "automation lists and the audit report are {items, paging, sorting}, or a bare array of the page's items",
  },
  'automation.export': {
    register: 'A-29',
    values: ['full', 'empty', 'entityBomb', 'externalEntity'],
    hostile: true,
    description:
      'GET /config answers the whole configuration, an empty <AutomationConfig></AutomationConfig>, the configuration behind a DOCTYPE whose nested entities expand a billion-fold (one task named &lol9;), or behind a DOCTYPE with an external entity (file:///etc/passwd); mftops must refuse all but the first as a backup',
  },
  'automation.keyDates': {
    register: 'A-31',
    values: ['iso', 'windows'],
    description:
      'PGP and SSH key expiry answers as ExpirationDate (an ISO instant, "" = never) and SSL ExpDate/ValidFromDate as ISO instants, or a key\'s expiry as Expires (epoch seconds, 0 = never) and certificate dates as M/d/yyyy h:mm:ss AM',
  },
  'tokens.type': {
    register: 'B-3',
    values: ['bearer', 'Bearer', 'absent'],
    divergent: 'absent',
    description: 'token answers of both services carry token_type "bearer", "Bearer", or none; divergent: none',
  },
  'tokens.expiresIn': {
    register: 'B-4',
    values: ['number', 'string', 'absent'],
    divergent: 'absent',
    description: 'token answers carry expires_in as a number, a digit string, or not at all; divergent: not at all',
  },
  'tokens.refresh': {
    register: 'B-5',
    values: ['rotate', 'none'],
    description: 'token answers carry a new refresh_token (rotated on every refresh), or none (sign in again)',
  },
  'transfer.ids': {
    register: 'T-1, T-13',
    values: ['number', 'string'],
    description: 'folder ids, parentId and group ids are JSON numbers, or strings',
  },
  'transfer.userName': {
    register: 'T-12',
    values: ['fullName', 'realname'],
    description:
      'user records (the users list, a user, the current user, group members, the answers to user writes) carry the full name as fullName (the current release), or as realname (an older one)',
  },
  'transfer.groupIds': {
    register: 'T-13',
    values: ['number', 'string'],
    description:
      "group ids (GET /groups, POST /groups, user records' groupIds) are JSON numbers (strings where transfer.ids=string), or strings whatever transfer.ids says (folder ids stay numbers)",
  },
  'transfer.userFilters': {
    register: 'T-17',
    values: ['all', 'active'],
    description:
      "GET /users without permission or status lists every user, or (a server whose defaults are the admin UI's) only the active ones: a suspended or template account is then left out unless status=AllUsers is asked for",
  },
  'transfer.envelope': {
    register: 'B-1',
    values: ['paging', 'flat'],
    description:
      'transfer lists are {items, paging: {page, perPage, totalItems, totalPages}, sorting}, or the flat {items, currentPage, totalItems, itemsPerPage, sorting}',
  },
  'transfer.maxPerPage': {
    register: 'B-9',
    values: ['asked', 'capped', 'echo'],
    divergent: 'echo',
    description:
      'transfer list pages hold as many items as perPage asks, at most 100 (the envelope reports 100), or at most 100 while the envelope reports the perPage asked (and totalPages from it); divergent: echo (a client trusting the reported size stops after page 1)',
  },
  'transfer.pastLastPage': {
    register: 'B-2',
    values: ['empty', '404'],
    description: 'a transfer list page past the last answers 200 with no items, or 404',
  },
  'transfer.aclName': {
    register: 'T-2',
    values: ['username', 'fullName', 'absent'],
    divergent: 'fullName',
    description:
      "a folder ACL entry's name is the username (groups: the group name), the user's full name, or absent; divergent: the full name (present but not a name a client can look up)",
  },
  'transfer.entryType': {
    register: 'T-3',
    values: ['exact', 'lower'],
    description: "a folder ACL entry's type is User/Group, or user/group",
  },
  'transfer.permissions': {
    register: 'T-4',
    values: ['boolean', 'number'],
    description: 'folder ACL entry permissions (and sharePermissions) are booleans, or 0/1',
  },
  'transfer.entryFlags': {
    register: 'T-5',
    values: ['present', 'absent'],
    description: 'folder ACL entries carry isEditable/isDeletable, or not',
  },
  'transfer.pathStyle': {
    register: 'T-6',
    values: ['plain', 'trailing'],
    description: 'folder paths are /A/B, or /A/B/ (the root stays /)',
  },
  'transfer.pathFilter': {
    register: 'T-7',
    values: ['insensitive', 'exact', 'ignored'],
    divergent: 'ignored',
    description: 'GET /folders?path= matches case-insensitively, exactly, or is ignored (every visible folder); divergent: ignored',
  },
  'transfer.folderAnswer': {
    register: 'T-8',
    values: ['folder', 'empty'],
    description: 'POST /folders/{id}/subfolders answers 201 with the folder, or with no body',
  },
  'transfer.aclAnswer': {
    register: 'T-9',
    values: ['list', 'entry', 'empty'],
    divergent: 'empty',
    description: 'POST/PUT /folders/{id}/acls answer the whole entry list, the entry written, or no body; divergent: no body',
  },
  'transfer.groupMembers': {
    register: 'T-16',
    values: ['members', 'userField', 'usersFilter', 'none'],
    divergent: 'usersFilter',
    description:
      "a group's members are listed by GET /groups/{id}/members, by a groupIds field on user records, by GET /users?groupId=, or not at all (the members path answers 404, the users list ignores groupId); divergent: usersFilter (the only form that needs a filter check)",
  },
} as const satisfies Readonly<Record<string, VariantSwitch>>;

export type VariantName = keyof typeof VARIANT_SWITCHES;

/** One reading of every switch: what the emulator answers and accepts. */
export type Variants = { readonly [K in VariantName]: (typeof VARIANT_SWITCHES)[K]['values'][number] };

export const VARIANT_NAMES = Object.keys(VARIANT_SWITCHES) as VariantName[];

export { PROFILES } from './profiles.js';
export type { Profile } from './profiles.js';

/**
 * What a named set fixes besides the switches: details of one release that no register row
 * makes a switch of.
 */
export interface ProfileDetails {
  /** `appVersion` of GET /info (and the `Version` of the configuration export). */
  readonly appVersion: string;
  /** The default `sortField` of GET /folders (T §4: "default Path; earlier release default name"; register T-11). */
  readonly folderSort: 'Path' | 'Name';
}

/** A named set: the switches it turns from their default, and its release details. */
export interface NamedSet {
  readonly description: string;
  readonly variants: Partial<Variants>;
  readonly details: ProfileDetails;
}

function divergentVariants(): Partial<Variants> {
  const out: Record<string, string> = {};
  for (const name of VARIANT_NAMES) {
    const s: VariantSwitch = VARIANT_SWITCHES[name];
    if (!s.hostile) out[name] = s.divergent ?? s.values[1];
  }
  return out as Partial<Variants>;
}

export const NAMED_SETS: Readonly<Record<Profile, NamedSet>> = {
  current: {
    description: 'every switch at its default: the first form gaps.md lists',
    variants: {},
    details: { appVersion: '2025.1.0', folderSort: 'Path' },
  },
  legacy: {
    description: 'an older release of both servers',
    variants: {
      'automation.basePath': 'webadmin',
      'automation.parameters': 'list',
      'automation.hostType': 'xferLock',
      'automation.hostGet': 'wrapped',
      'automation.scheduler': 'Enabled',
      'transfer.ids': 'string',
      'transfer.envelope': 'flat',
      'transfer.pastLastPage': '404',
    },
    details: { appVersion: '2020.1.0', folderSort: 'Name' },
  },
  divergent: {
    description: 'a separate implementation that took the other reading wherever it could',
    variants: divergentVariants(),
    details: { appVersion: '2025.1.0', folderSort: 'Name' },
  },
};

/** Every switch at its default. */
export function defaultVariants(): Variants {
  return Object.fromEntries(VARIANT_NAMES.map((n) => [n, VARIANT_SWITCHES[n].values[0]])) as unknown as Variants;
}

/** `did you mean`, when a candidate is close. */
function hint(input: string, candidates: readonly string[]): string {
  const s = suggestName(input, candidates);
  return s === undefined ? '' : `; did you mean ${s}?`;
}

/**
 * Register rows whose switch is a number, not a reading: served by an emulator option instead,
 * so `--variant` names it.
 */
const OPTION_SWITCHES: Readonly<Record<string, string>> = {
  'tokens.accessTtl': 'the access-token lifetime is the --access-ttl option (accessTtlSeconds), not a variant',
  'limits.rate': 'the per-service rate limit is the --rate-limit option (rateLimit, requests per second), not a variant',
};

/** Check one `name = value`; a mistake is a ConfigError naming the known names or values. */
function checkVariant(name: string, value: string): void {
  const option = OPTION_SWITCHES[name];
  if (option !== undefined) throw new ConfigError(`${name}: ${option}`);
  if (!(VARIANT_NAMES as readonly string[]).includes(name)) {
    throw new ConfigError(`unknown variant ${name}${hint(name, VARIANT_NAMES)} (known: ${VARIANT_NAMES.join(', ')})`);
  }
  const values: readonly string[] = VARIANT_SWITCHES[name as VariantName].values;
  if (!values.includes(value)) throw new ConfigError(`variant ${name} must be ${values.join(', ')}, not ${JSON.stringify(value)}${hint(value, values)}`);
}

/** The named set's switches with `overrides` on top (the overrides win); a mistake is a ConfigError. */
export function resolveVariants(profile: string, overrides: Readonly<Record<string, string>> = {}): Variants {
  if (!(PROFILES as readonly string[]).includes(profile))
    throw new ConfigError(`unknown profile ${profile}${hint(profile, PROFILES)} (known: ${PROFILES.join(', ')})`);
  for (const [name, value] of Object.entries(overrides)) checkVariant(name, String(value));
  return { ...defaultVariants(), ...NAMED_SETS[profile as Profile].variants, ...overrides } as Variants;
}

/** `NAME=VALUE` texts (as `--variant` takes them) to overrides; a mistake is a ConfigError. */
export function parseVariantAssignments(texts: readonly string[]): Partial<Variants> {
  const out: Record<string, string> = {};
  for (const text of texts) {
    const eq = text.indexOf('=');
    if (eq <= 0) throw new ConfigError(`--variant takes NAME=VALUE, like automation.days=short, not ${JSON.stringify(text)}`);
    const name = text.slice(0, eq).trim();
    const value = text.slice(eq + 1).trim();
    checkVariant(name, value);
    if (out[name] !== undefined && out[name] !== value) throw new ConfigError(`--variant ${name} is given twice (${out[name]}, ${value})`);
    out[name] = value;
  }
  return out as Partial<Variants>;
}

/** The switches that differ from their default, as `NAME=VALUE` (for the emulator's start line). */
export function describeVariants(variants: Variants): string[] {
  return VARIANT_NAMES.filter((n) => variants[n] !== VARIANT_SWITCHES[n].values[0]).map((n) => `${n}=${variants[n]}`);
}
