import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { parseDocument, LineCounter } from 'yaml';
import { createDiagnostic, placeOf, sortDiagnostics, type Diagnostic, type DiagnosticCode, type SourceRange } from '../diagnostics.js';
import { ConfigError, systemError } from '../errors.js';
import { createSourceMap } from '../manifest/positions.js';
import { locateSchemaErrors, rejectedPath, touchesRejected, type SchemaProblem } from '../manifest/schema-errors.js';
import { suggestName } from '../manifest/suggest.js';
import { isRecord } from '../is-record.js';
import { getValidatorByFile } from '../manifest/schemas.js';
import type { SourceMap } from '../manifest/types.js';
import { describeSecretFailure, parseSecretRef, readSecretRef, type Secret, type SecretRef } from '../secret.js';
import { withDefined } from '../with-defined.js';
import { DEFAULT_PRIVILEGED_ACCOUNTS } from './model.js';
import type {
  AllowedAccount,
  DriftIgnoreRule,
  EnvironmentSettings,
  MftopsConfig,
  VarValue,
  PrunableKind,
  ResolvedService,
  ServiceName,
  ServiceSettings,
} from './model.js';

import { checkServiceUrl } from './service-url.js';
import { buildCalendarSettings, checkCalendarValues } from './calendar-settings.js';
import type { RawCalendarSettings } from './calendar-settings.js';
export { checkServiceUrl } from './service-url.js';

export const DEFAULT_CONFIG_FILE = 'mftops.yaml';

/**
 * Read and check `mftops.yaml`. Every problem in the file is a diagnostic (MF5xx) at its place,
 * all of them at once, in one ConfigError. Secrets are not resolved here.
 */
export function loadConfig(path: string, cwd: string = process.cwd(), from?: string): MftopsConfig {
  const file = resolve(cwd, path);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw configError(
      [
        code === 'ENOENT'
          ? createDiagnostic('error', 'MF501', { file }, 'configuration file not found', {
              hint:
                from !== undefined
                  ? `${from} names this file; fix it, or pass --config FILE`
                  : 'pass --config FILE, or run from the folder that holds mftops.yaml',
            })
          : createDiagnostic('error', 'MF501', { file }, systemError('cannot read the configuration file', err).message),
      ],
      cwd,
    );
  }
  const text = bytes.toString('utf8');
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    const rangeOf = ([start, end]: readonly [number, number]): SourceRange => {
      const from = lineCounter.linePos(start);
      const to = end > start ? lineCounter.linePos(end) : undefined;
      return { file, line: from.line, col: from.col, ...(to ? { endLine: to.line, endCol: to.col } : {}) };
    };
    throw configError(
      doc.errors.map((e) => createDiagnostic('error', 'MF502', rangeOf(e.pos), e.message.split('\n')[0]!)),
      cwd,
    );
  }
  const data: unknown = doc.toJS({ maxAliasCount: 100 });
  const sourceMap = createSourceMap(doc, lineCounter, file);
  const validate = getValidatorByFile('config.schema.json');
  const problems = validate(data) ? [] : locateSchemaErrors(validate.errors ?? [], sourceMap);
  const rejected = problems.map(rejectedPath).filter((p) => p !== undefined);
  // The values' checks too when the schema failed, skipping what it rejected: every problem at once.
  const diagnostics = [...problems.map(describeProblem), ...checkValues(data, sourceMap, rejected)];
  if (diagnostics.length > 0) throw configError(diagnostics, cwd);
  return { ...buildConfig(data as RawConfig, file, cwd, sourceMap), sha256: `sha256:${createHash('sha256').update(bytes).digest('hex')}` };
}

/**
 * What the schema cannot say: service URLs (scheme, credentials, plain http off loopback) and
 * `until` dates that are not of the calendar. Runs on any data, valid or not; a value the schema
 * rejected (`rejected`) is not looked at again.
 */
function checkValues(data: unknown, sourceMap: SourceMap, rejected: readonly (readonly string[])[]): Diagnostic[] {
  const problems: Diagnostic[] = [];
  const environments = isRecord(data) && isRecord(data.environments) ? data.environments : {};
  for (const [name, env] of Object.entries(environments)) {
    if (!isRecord(env)) continue;
    for (const which of ['automation', 'transfer'] as const) {
      const service = env[which];
      const path = ['environments', name, which, 'url'];
      if (!isRecord(service) || typeof service.url !== 'string' || touchesRejected(rejected, path)) continue;
      const urlProblem = checkServiceUrl(service.url);
      if (urlProblem) problems.push(createDiagnostic('error', 'MF507', sourceMap.locate(path), `environments.${name}.${which}.url: ${urlProblem}`));
    }
    const vars = isRecord(env.vars) ? env.vars : {};
    for (const [key, value] of Object.entries(vars)) {
      const path = ['environments', name, 'vars', key];
      const texts = Array.isArray(value) ? value : [value];
      if (touchesRejected(rejected, path) || !texts.some((v) => typeof v === 'string' && /\$\{(env|file):/.test(v))) continue;
      problems.push(
        createDiagnostic('error', 'MF505', sourceMap.locate(path), `environments.${name}.vars.${key}: a variable cannot hold a secret reference`, {
          hint: 'variables are not secrets (plan files record them): write the ${env:}/${file:} reference in the manifest itself',
        }),
      );
    }
    const ignore = isRecord(env.drift) && Array.isArray(env.drift.ignore) ? env.drift.ignore : [];
    ignore.forEach((rule: unknown, i) => {
      const path = ['environments', name, 'drift', 'ignore', i, 'until'];
      if (!isRecord(rule) || typeof rule.until !== 'string' || touchesRejected(rejected, path) || isCalendarDate(rule.until)) return;
      problems.push(
        createDiagnostic('error', 'MF505', sourceMap.locate(path), `environments.${name}.drift.ignore.${i}.until: ${rule.until} is not a date of the calendar`),
      );
    });
    problems.push(...checkCalendarValues(name, env, sourceMap, rejected));
  }
  return problems;
}

/** The file's problems, sorted, in one error whose message is their text (paths relative to `cwd` when given). */
function configError(diagnostics: readonly Diagnostic[], cwd: string | undefined): ConfigError {
  const sorted = sortDiagnostics(diagnostics);
  const show = (file: string) => (cwd === undefined ? file : relative(cwd, file) || file);
  const lines = sorted.map((d) => `${placeOf(d, show) ?? ''}: ${d.summary}${d.hint !== undefined ? ` (${d.hint})` : ''}`);
  return new ConfigError(lines.join('\n'), { diagnostics: sorted });
}

interface RawService {
  url: string;
  username: string;
  password: string;
  caFile?: string;
}
interface RawEnvironment extends RawCalendarSettings {
  automation?: RawService & { transferHosts?: string[] };
  transfer?: RawService;
  manifests?: string[];
  vars?: Record<string, VarValue>;
  scope?: { taskGroups?: string[]; folders?: string[]; users?: string[] };
  prune?: PrunableKind[];
  drift?: { ignore?: RawIgnoreRule[] };
  privilegedAccounts?: { allowUnmanaged?: (string | RawAllowedAccount)[]; automationAdminGroup?: string; staleSignOnDays?: number };
}
interface RawAllowedAccount {
  name: string;
  service?: ServiceName;
  reason?: string;
}
interface RawIgnoreRule {
  address: string;
  path?: string;
  until?: string;
  reason?: string;
}
interface RawConfig {
  environments: Record<string, RawEnvironment>;
  snapshots?: { dir?: string; keep?: number };
  secrets?: { fileRoots?: string[] };
  limits?: { manifestMegabytes?: number };
}

/** The configuration of a file that passed the schema and checkValues. */
function buildConfig(raw: RawConfig, file: string, cwd: string, sourceMap: SourceMap): MftopsConfig {
  const dir = dirname(file);
  const shown = relative(cwd, file) || file;
  const environments = new Map<string, EnvironmentSettings>();
  for (const [name, env] of Object.entries(raw.environments)) {
    const service = (which: ServiceName): ServiceSettings | undefined => {
      const s = env[which];
      if (!s) return undefined;
      return {
        url: s.url.replace(/\/+$/, ''),
        username: parseSecretRef(s.username) ?? s.username,
        password: parseSecretRef(s.password) as SecretRef,
        ...(s.caFile !== undefined ? { caFile: resolve(dir, s.caFile) } : {}),
      };
    };
    const automation = service('automation');
    const transfer = service('transfer');
    const ignore = (env.drift?.ignore ?? []).map((rule, i): DriftIgnoreRule => {
      const pos = sourceMap.locate(['environments', name, 'drift', 'ignore', i]);
      return {
        address: rule.address,
        ...(rule.path !== undefined ? { path: rule.path } : {}),
        ...(rule.until !== undefined ? { until: rule.until } : {}),
        ...(rule.reason !== undefined ? { reason: rule.reason } : {}),
        where: `${shown}:${pos.line}:${pos.col}`,
      };
    });
    const privileged = env.privilegedAccounts;
    const allowUnmanaged = (privileged?.allowUnmanaged ?? []).map((entry, i): AllowedAccount => {
      const pos = sourceMap.locate(['environments', name, 'privilegedAccounts', 'allowUnmanaged', i]);
      const { name: account, service, reason } = typeof entry === 'string' ? { name: entry } : entry;
      return { name: account, ...withDefined({ service, reason }), where: `${shown}:${pos.line}:${pos.col}` };
    });
    environments.set(name, {
      name,
      ...(automation ? { automation } : {}),
      ...(transfer ? { transfer } : {}),
      ...(env.automation?.transferHosts !== undefined ? { transferHosts: [...env.automation.transferHosts] } : {}),
      manifests: (env.manifests ?? []).map((p) => resolve(dir, p)),
      ...(env.vars !== undefined ? { vars: { ...env.vars } } : {}),
      scope: { taskGroups: env.scope?.taskGroups ?? [], folders: env.scope?.folders ?? [], ...(env.scope?.users ? { users: env.scope.users } : {}) },
      prune: env.prune ?? [],
      ...(env.drift !== undefined ? { drift: { ignore } } : {}),
      ...(privileged !== undefined
        ? {
            privilegedAccounts: {
              allowUnmanaged,
              automationAdminGroup: privileged.automationAdminGroup ?? DEFAULT_PRIVILEGED_ACCOUNTS.automationAdminGroup,
              staleSignOnDays: privileged.staleSignOnDays ?? DEFAULT_PRIVILEGED_ACCOUNTS.staleSignOnDays,
            },
          }
        : {}),
      ...buildCalendarSettings(name, env, sourceMap, shown),
    });
  }
  const snapDir = raw.snapshots?.dir ?? '.mftops/snapshots';
  return {
    file,
    environments,
    snapshots: { dir: isAbsolute(snapDir) ? snapDir : resolve(dir, snapDir), keep: raw.snapshots?.keep ?? 30 },
    secrets: { fileRoots: (raw.secrets?.fileRoots ?? []).map((p) => resolve(dir, p)) },
    ...(raw.limits?.manifestMegabytes !== undefined ? { maxManifestBytes: raw.limits.manifestMegabytes * 1024 * 1024 } : {}),
    sourceMap,
  };
}

/** `2026-02-30` passes the schema's pattern but names no day. */
function isCalendarDate(text: string): boolean {
  const time = Date.parse(`${text}T00:00:00Z`);
  return Number.isFinite(time) && new Date(time).toISOString().slice(0, 10) === text;
}

/**
 * The environment a command works on: the one named, or the only one. Unknown names list the
 * known ones.
 */
export function selectEnvironment(config: MftopsConfig, name: string | undefined, from?: string): EnvironmentSettings {
  const names = [...config.environments.keys()];
  if (name === undefined) {
    if (names.length === 1) return config.environments.get(names[0]!)!;
    throw new ConfigError(`${config.file}: several environments (${names.join(', ')}); choose one with --env NAME`);
  }
  const env = config.environments.get(name);
  if (!env) throw new ConfigError(`environment "${name}"${from !== undefined ? ` (from ${from})` : ''} is not in ${config.file} (known: ${names.join(', ')})`);
  return env;
}

/**
 * Resolve a service's credentials from the process environment / secret files. A variable that is
 * not set or a file that cannot be read is a diagnostic (MF508) at the reference in mftops.yaml.
 */
export function resolveService(config: MftopsConfig, env: EnvironmentSettings, which: ServiceName, processEnv: NodeJS.ProcessEnv): ResolvedService | undefined {
  return resolveEnvironmentServices(config, env, [which], processEnv)[0];
}

/**
 * The credentials of these services (those the environment configures), all of them: every
 * variable that is not set and every file that cannot be read is named, each a diagnostic (MF508)
 * at its reference in mftops.yaml, in one error.
 */
export function resolveEnvironmentServices(
  config: MftopsConfig,
  env: EnvironmentSettings,
  which: readonly ServiceName[],
  processEnv: NodeJS.ProcessEnv,
): ResolvedService[] {
  const problems: Diagnostic[] = [];
  const secret = (service: ServiceName, field: 'username' | 'password', ref: SecretRef): Secret | undefined => {
    const path = ['environments', env.name, service, field];
    const read = readSecretRef(ref, { env: processEnv, baseDir: dirname(config.file) });
    if (read.ok) return read.secret;
    problems.push(createDiagnostic('error', 'MF508', config.sourceMap.locate(path), `${path.join('.')}: ${describeSecretFailure(read.failure)}`));
    return undefined;
  };
  const resolved: ResolvedService[] = [];
  for (const name of which) {
    const s = env[name];
    if (!s) continue;
    const username = typeof s.username === 'string' ? s.username : secret(name, 'username', s.username)?.reveal();
    const password = secret(name, 'password', s.password);
    if (username !== undefined && password !== undefined) {
      resolved.push({ name, url: s.url, username, password, ...(s.caFile !== undefined ? { caFile: s.caFile } : {}) });
    }
  }
  if (problems.length > 0) throw configError(problems, undefined);
  return resolved;
}

// --- schema errors in the configuration's terms ------------------------------------------------

/** A schema problem as a coded diagnostic, worded with the dotted path of the key (`environments.prod.transfer`). */
function describeProblem({ error: e, path, at }: SchemaProblem): Diagnostic {
  const where = path.join('.');
  const prefix = where ? `${where}: ` : '';
  const p = e.params as Record<string, unknown>;
  const problem = (code: DiagnosticCode, text: string, range: SourceRange = at) => createDiagnostic('error', code, range, `${prefix}${text}`);
  switch (e.keyword) {
    case 'required':
      return problem('MF504', `missing required key \`${String(p['missingProperty'])}\``);
    case 'additionalProperties': {
      const key = String(p['additionalProperty']);
      const present = new Set(isRecord(e.data) ? Object.keys(e.data) : []);
      const known = Object.keys((e.parentSchema?.['properties'] ?? {}) as object);
      const guess = suggestName(
        key,
        known.filter((k) => !present.has(k)),
      );
      return problem('MF503', `unknown key \`${key}\`${guess ? ` — did you mean \`${guess}\`?` : ''}`);
    }
    case 'anyOf':
    case 'oneOf': {
      if (path[2] === 'changeWindows' && path[3] === 'freeze') return problem('MF504', freezeKeysText(e.data));
      // Alternatives that each require a key (an environment's services): "one of these keys".
      const keys = ((e.parentSchema?.[e.keyword] ?? []) as { required?: string[] }[]).flatMap((alternative) => alternative.required ?? []);
      return problem('MF504', `needs at least one of ${keys.map((k) => `\`${k}\``).join(', ')}`);
    }
    case 'minProperties':
      return problem('MF504', 'must name at least one environment');
    case 'const':
      return problem('MF505', `must be ${String(p['allowedValue'])}`);
    case 'enum':
      return problem('MF505', `must be one of ${(p['allowedValues'] as unknown[]).join(', ')}`);
    case 'pattern':
      if (/password/.test(where)) {
        return problem('MF506', 'must be a ${env:NAME} or ${file:PATH} reference; passwords are never written in the configuration file');
      }
      if (/\.until$/.test(where)) return problem('MF505', 'must be a date written YYYY-MM-DD');
      if (path[2] === 'changeWindows' || path[2] === 'schedule') return problem('MF505', calendarPatternText(String(p['pattern'])));
      if (path[path.length - 1] === 'vars' && e.propertyName !== undefined) {
        return createDiagnostic(
          'error',
          'MF505',
          at,
          `${where}.${e.propertyName}: variable names start with a letter or _ and use letters, digits, _, . and -`,
        );
      }
      if (path[0] === 'environments' && path.length === 1 && e.propertyName !== undefined) {
        return createDiagnostic('error', 'MF505', at, `environments.${e.propertyName}: environment names use letters, digits, ., _ and -`);
      }
      return problem('MF505', /folders/.test(where) ? 'must be an absolute folder path starting with /' : `does not match ${String(p['pattern'])}`);
    case 'type':
      if (path[2] === 'vars' && path.length >= 4) return problem('MF505', 'a variable must be a string, a number, a boolean or a list of them');
      if (path[3] === 'allowUnmanaged' && path.length === 5) return problem('MF505', 'must be a username or a mapping { name, service, reason }');
      return problem(
        'MF505',
        `must be ${String(p['type']) === 'object' ? 'a mapping' : String(p['type']) === 'array' ? 'a list' : String(p['type']) === 'integer' ? 'an integer' : `a ${String(p['type'])}`}`,
      );
    case 'minLength':
      return problem('MF505', 'must not be empty');
    case 'minimum':
    case 'maximum':
      return problem('MF505', `must be ${e.keyword === 'minimum' ? 'at least' : 'at most'} ${String(p['limit'])}`);
    case 'uniqueItems':
      return problem('MF505', /transferHosts$/.test(where) ? 'names a host twice' : 'lists a kind twice');
    default:
      return problem('MF505', e.message ?? 'is invalid');
  }
}

/** What a `changeWindows`/`schedule` value that does not match its pattern must be. */
/** What a freeze (`changeWindows.freeze[]`) lacks or has too much of: `from` and `to`, or `dateList`. */
function freezeKeysText(data: unknown): string {
  const has = (key: string): boolean => isRecord(data) && data[key] !== undefined;
  if ((has('from') || has('to')) && has('dateList')) return '`from`/`to` and `dateList` cannot be given together';
  if (has('from') !== has('to')) return `missing \`${has('from') ? 'to' : 'from'}\``;
  return 'needs `from` and `to`, or `dateList`';
}

function calendarPatternText(pattern: string): string {
  if (pattern.includes('[mh]')) return 'must be minutes, or a duration such as 15m or 2h';
  if (pattern.includes('24:00')) return 'must be a time written HH:mm (00:00 to 24:00)';
  return 'must be a date written YYYY-MM-DD';
}
