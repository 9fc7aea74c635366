import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import type { ErrorObject } from 'ajv/dist/2020.js';
import { getValidatorByFile } from '../manifest/schemas.js';
import { isMap, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import { ConfigError } from '../errors.js';
import { parseSecretRef, resolveSecretRef, type SecretRef } from '../secret.js';
import type { DriftIgnoreRule, EnvironmentSettings, MftopsConfig, PrunableKind, ResolvedService, ServiceName, ServiceSettings } from './model.js';

import { checkServiceUrl } from './service-url.js';
export { checkServiceUrl } from './service-url.js';

export const DEFAULT_CONFIG_FILE = 'mftops.yaml';


/**
 * Read and check `mftops.yaml`. Every problem in the file is reported at once, each as
 * `FILE:LINE:COL: message`, in one ConfigError. Secrets are not resolved here.
 */
export function loadConfig(path: string, cwd: string = process.cwd()): MftopsConfig {
  const file = resolve(cwd, path);
  const shown = relative(cwd, file) || file;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError(
      code === 'ENOENT'
        ? `configuration file ${shown} not found (pass --config FILE, or run from the folder that holds mftops.yaml)`
        : `cannot read configuration file ${shown} (${code ?? 'unreadable'})`,
    );
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    const lines = doc.errors.map((e) => {
      const pos = lineCounter.linePos(e.pos[0]);
      return `${shown}:${pos.line}:${pos.col}: ${e.message.split('\n')[0]}`;
    });
    throw new ConfigError(lines.join('\n'));
  }
  const data: unknown = doc.toJS({ maxAliasCount: 100 });
  const validate = getValidatorByFile('config.schema.json');
  if (!validate(data)) {
    const lines = simplifyErrors(validate.errors ?? []).map((e) => {
      const pos = positionOf(doc, lineCounter, e);
      return `${shown}:${pos.line}:${pos.col}: ${describeError(e)}`;
    });
    throw new ConfigError(lines.join('\n'));
  }
  return buildConfig(data as RawConfig, file, shown, doc, lineCounter);
}

interface RawService {
  url: string;
  username: string;
  password: string;
  caFile?: string;
}
interface RawEnvironment {
  automation?: RawService;
  transfer?: RawService;
  manifests?: string[];
  scope?: { taskGroups?: string[]; folders?: string[] };
  prune?: PrunableKind[];
  drift?: { ignore?: RawIgnoreRule[] };
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
}

function buildConfig(raw: RawConfig, file: string, shown: string, doc: Document, lc: LineCounter): MftopsConfig {
  const dir = dirname(file);
  const problems: string[] = [];
  const environments = new Map<string, EnvironmentSettings>();
  for (const [name, env] of Object.entries(raw.environments)) {
    const service = (which: ServiceName): ServiceSettings | undefined => {
      const s = env[which];
      if (!s) return undefined;
      const urlProblem = checkServiceUrl(s.url);
      if (urlProblem) {
        const pos = nodePosition(doc, lc, ['environments', name, which, 'url']);
        problems.push(`${shown}:${pos.line}:${pos.col}: environments.${name}.${which}.url: ${urlProblem}`);
      }
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
      const at = (key?: string) => nodePosition(doc, lc, ['environments', name, 'drift', 'ignore', String(i), ...(key ? [key] : [])]);
      if (rule.until !== undefined && !isCalendarDate(rule.until)) {
        const pos = at('until');
        problems.push(`${shown}:${pos.line}:${pos.col}: environments.${name}.drift.ignore.${i}.until: ${rule.until} is not a date of the calendar`);
      }
      const pos = at();
      return {
        address: rule.address,
        ...(rule.path !== undefined ? { path: rule.path } : {}),
        ...(rule.until !== undefined ? { until: rule.until } : {}),
        ...(rule.reason !== undefined ? { reason: rule.reason } : {}),
        where: `${shown}:${pos.line}:${pos.col}`,
      };
    });
    environments.set(name, {
      name,
      ...(automation ? { automation } : {}),
      ...(transfer ? { transfer } : {}),
      manifests: (env.manifests ?? []).map((p) => resolve(dir, p)),
      scope: { taskGroups: env.scope?.taskGroups ?? [], folders: env.scope?.folders ?? [] },
      prune: env.prune ?? [],
      ...(env.drift !== undefined ? { drift: { ignore } } : {}),
    });
  }
  if (problems.length > 0) throw new ConfigError(problems.join('\n'));
  const snapDir = raw.snapshots?.dir ?? '.mftops/snapshots';
  return {
    file,
    environments,
    snapshots: { dir: isAbsolute(snapDir) ? snapDir : resolve(dir, snapDir), keep: raw.snapshots?.keep ?? 30 },
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
export function selectEnvironment(config: MftopsConfig, name: string | undefined): EnvironmentSettings {
  const names = [...config.environments.keys()];
  if (name === undefined) {
    if (names.length === 1) return config.environments.get(names[0]!)!;
    throw new ConfigError(`${config.file}: several environments (${names.join(', ')}); choose one with --env NAME`);
  }
  const env = config.environments.get(name);
  if (!env) throw new ConfigError(`environment "${name}" is not in ${config.file} (known: ${names.join(', ')})`);
  return env;
}

/** Resolve a service's credentials from the process environment / secret files. */
export function resolveService(
  config: MftopsConfig,
  env: EnvironmentSettings,
  which: ServiceName,
  processEnv: NodeJS.ProcessEnv,
): ResolvedService | undefined {
  const s = env[which];
  if (!s) return undefined;
  const ctx = (field: string) => ({
    env: processEnv,
    baseDir: dirname(config.file),
    where: `${config.file}: environments.${env.name}.${which}.${field}`,
  });
  const username = typeof s.username === 'string' ? s.username : resolveSecretRef(s.username, ctx('username')).reveal();
  return {
    name: which,
    url: s.url,
    username,
    password: resolveSecretRef(s.password, ctx('password')),
    ...(s.caFile !== undefined ? { caFile: s.caFile } : {}),
  };
}

// --- ajv errors in the user's terms ------------------------------------------------------------

/** Drop the noise ajv adds around anyOf/$ref failures; keep what the user must fix. */
function simplifyErrors(errors: readonly ErrorObject[]): ErrorObject[] {
  const seen = new Set<string>();
  const out: ErrorObject[] = [];
  for (const e of errors) {
    if (e.keyword === 'anyOf' && !e.instancePath.match(/^\/environments\/[^/]+$/)) continue;
    if (e.keyword === 'required' && e.schemaPath.includes('/anyOf/')) continue;
    const key = `${e.instancePath}|${e.keyword}|${JSON.stringify(e.params)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(e);
  }
  return out;
}

function dotted(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

function describeError(e: ErrorObject): string {
  const where = dotted(e.instancePath);
  const prefix = where ? `${where}: ` : '';
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `${prefix}missing required key \`${String(p['missingProperty'])}\``;
    case 'additionalProperties':
      return `${prefix}unknown key \`${String(p['additionalProperty'])}\``;
    case 'anyOf':
      return `${prefix}needs at least one of \`automation\`, \`transfer\``;
    case 'const':
      return `${prefix}must be ${String(p['allowedValue'])}`;
    case 'enum':
      return `${prefix}must be one of ${(p['allowedValues'] as unknown[]).join(', ')}`;
    case 'pattern':
      if (/password/.test(where)) {
        return `${prefix}must be a \${env:NAME} or \${file:PATH} reference; passwords are never written in the configuration file`;
      }
      if (/\.until$/.test(where)) return `${prefix}must be a date written YYYY-MM-DD`;
      if (e.instancePath.startsWith('/environments') && where.split('.').length === 2 && e.propertyName !== undefined) {
        return `${prefix}environment names use letters, digits, ., _ and -`;
      }
      return `${prefix}${/folders/.test(where) ? 'must be an absolute folder path starting with /' : `does not match ${String(p['pattern'])}`}`;
    case 'type':
      return `${prefix}must be ${String(p['type']) === 'object' ? 'a mapping' : String(p['type']) === 'array' ? 'a list' : `a ${String(p['type'])}`}`;
    case 'minProperties':
      return `${prefix}must name at least one environment`;
    case 'minLength':
      return `${prefix}must not be empty`;
    case 'minimum':
    case 'maximum':
      return `${prefix}must be ${e.keyword === 'minimum' ? 'at least' : 'at most'} ${String(p['limit'])}`;
    case 'uniqueItems':
      return `${prefix}lists a kind twice`;
    default:
      return `${prefix}${e.message ?? 'is invalid'}`;
  }
}

function pathSegments(instancePath: string): string[] {
  return instancePath === '' ? [] : instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function positionOf(doc: Document, lc: LineCounter, e: ErrorObject): { line: number; col: number } {
  const segs = pathSegments(e.instancePath);
  const p = e.params as Record<string, unknown>;
  if (e.keyword === 'additionalProperties') return nodePosition(doc, lc, [...segs, String(p['additionalProperty'])], true);
  // A missing key is reported at the key of the mapping that lacks it.
  if (e.keyword === 'required' || e.keyword === 'anyOf') return nodePosition(doc, lc, segs, true);
  return nodePosition(doc, lc, segs);
}

/** Line and column of the value at `path` (or of its key), falling back to the nearest parent. */
function nodePosition(doc: Document, lc: LineCounter, path: readonly string[], atKey = false): { line: number; col: number } {
  for (let n = path.length; n >= 0; n--) {
    const parentPath = path.slice(0, Math.max(0, n - 1));
    const parent = n === 0 ? doc.contents : doc.getIn(parentPath, true);
    if (n === 0) {
      const off = (doc.contents as { range?: [number, number, number] } | null)?.range?.[0] ?? 0;
      return lc.linePos(off);
    }
    if (!isMap(parent)) {
      const node = doc.getIn(path.slice(0, n), true) as { range?: [number, number, number] } | undefined;
      if (node?.range) return lc.linePos(node.range[0]);
      continue;
    }
    const key = path[n - 1];
    const pair = parent.items.find((it) => isScalar(it.key) && String(it.key.value) === key);
    if (!pair) continue;
    const target = atKey && n === path.length ? pair.key : (pair.value ?? pair.key);
    const range = (target as { range?: [number, number, number] } | null)?.range;
    if (range) return lc.linePos(range[0]);
  }
  return { line: 1, col: 1 };
}
