import type { EnvironmentSettings, ResolvedService } from '../config/model.js';
import { isRecord } from '../is-record.js';
import { KIND_IO } from '../kinds/io-registry.js';
import { folderKey } from '../live/model.js';
import { FOLDER_LIST_THRESHOLD } from '../live/read-live-state.js';
import type { ParsedFile } from '../manifest/parse.js';
import type { Folder } from '../services/transfer/types.js';
import { MANIFEST_KINDS } from '../vocabulary.js';
import { openReadonlyClients, type OpenClients } from './clients.js';
import type { AppContext } from './context.js';

/**
 * Reads started while the manifests load (issue 29): plan and drift open their read-only clients
 * first, and each manifest file, as it is parsed, starts the reads its documents will need (the
 * automation lists for a task or an ACL; the folder list, then each managed folder's ACL: each
 * kind's `KindIo.readAhead` says which). The later `readLiveState` goes through `readers`, whose calls take a started read instead of
 * sending it again, so the requests are the ones it would have sent, only earlier.
 *
 * Reads start from the READ_AHEAD_AFTER_FILES-th file on (a small set sends nothing before it is
 * checked). Only documents that name their kind and object literally, for this environment, start reads:
 * a guess that may be wrong costs a request. Reads are read-only; when a manifest turns out
 * invalid, `close` revokes the tokens and the started reads' outcomes are dropped unseen.
 */
export interface ReadPrefetch {
  /** The clients' read-only views, taking a started read where there is one (each read is taken once). */
  readonly readers: OpenClients['readers'];
  /** Called with each manifest file as it is parsed: starts the reads its documents need. */
  readonly onFile: (file: ParsedFile) => void;
  /** Loading is over: no further read is started ahead (the ones started finish; `readLiveState` sends the rest). */
  stop(): void;
  /** Revoke the tokens, close the connections (as `OpenClients.close`). */
  close(): Promise<void>;
}

/**
 * Reads start once this many files are parsed (the loader's first turn of the event loop, see
 * FILES_PER_TURN in src/manifest/load.ts): a smaller set loads in less than a round trip, so
 * reading ahead would gain nothing, and an invalid one still stops before any request.
 */
export const READ_AHEAD_AFTER_FILES = 50;

/** Open the read-only clients of `services` and a prefetch over them for `env`'s manifests. */
export async function startReadPrefetch(
  services: readonly ResolvedService[],
  env: EnvironmentSettings,
  ctx: Pick<AppContext, 'logger' | 'env'>,
  parallelism: number,
): Promise<ReadPrefetch> {
  return prefetchReads(await openReadonlyClients(services, ctx, { parallelism }), env, parallelism);
}

/**
 * The prefetch over clients already open: apply's, whose one token then serves its plan, its
 * checks and its writes. Only the plan may read through `readers` (a check that took a read
 * started before the plan would see the servers as they were then).
 */
export function prefetchReads(clients: Pick<OpenClients, 'readers' | 'close'>, env: Pick<EnvironmentSettings, 'name'>, parallelism: number): ReadPrefetch {
  const started = new Map<string, Promise<unknown>>();
  let stopped = false;
  /** Start `call` under `key` once; its failure is kept for the reader that takes it, never unhandled. */
  const begin = (key: string, call: () => Promise<unknown>): Promise<unknown> | undefined => {
    if (stopped || started.has(key)) return started.get(key);
    const p = call();
    p.catch(() => undefined);
    started.set(key, p);
    return p;
  };

  const automation = clients.readers.automation;
  const transfer = clients.readers.transfer;
  let tasksAhead = false;
  let aclsAhead = false;
  const startTaskReads = () => {
    if (automation === undefined || tasksAhead) return;
    tasksAhead = true;
    void begin('info', () => automation.info());
    void begin('listTasks', () => automation.listTasks());
    void begin('listHosts', () => automation.listHosts());
    void begin('listCustomScripts', () => automation.listCustomScripts());
    void begin('listStandardScripts', () => automation.listStandardScripts());
    void begin('listDateLists', () => automation.listDateLists());
    void begin('listResourceGroups', () => automation.listResourceGroups());
  };
  const startAclReads = () => {
    if (automation === undefined || aclsAhead) return;
    aclsAhead = true;
    void begin('info', () => automation.info());
    void begin('listResourceGroups', () => automation.listResourceGroups());
    void begin('listResourceGroupAcls', () => automation.listResourceGroupAcls());
  };

  // Folders: their paths by key, in the order met; the list once more than the threshold are
  // named (as readLiveState decides), then each one's ACL, `parallelism` at once.
  const folderPaths = new Set<string>();
  let byKey: Map<string, Folder> | undefined;
  const queue: Folder[] = [];
  let inFlight = 0;
  const pump = () => {
    while (!stopped && inFlight < parallelism && queue.length > 0) {
      const folder = queue.shift()!;
      const p = begin(`listFolderAcls:${String(folder.id)}`, () => transfer!.listFolderAcls(folder.id));
      if (p === undefined) continue;
      inFlight++;
      void p.then(
        () => ((inFlight -= 1), pump()),
        () => ((inFlight -= 1), pump()),
      );
    }
  };
  const enqueue = (key: string) => {
    const folder = byKey?.get(key);
    if (folder === undefined) return;
    queue.push(folder);
    pump();
  };
  const addFolder = (path: string) => {
    if (transfer === undefined) return;
    const key = folderKey(path);
    if (folderPaths.has(key)) return;
    folderPaths.add(key);
    if (byKey !== undefined) return enqueue(key);
    if (folderPaths.size <= FOLDER_LIST_THRESHOLD || started.has('listFolders')) return;
    const listed = begin('listFolders', () => transfer.listFolders());
    void listed?.then(
      (folders) => {
        byKey = new Map();
        for (const f of folders as Folder[]) if (!byKey.has(folderKey(f.path))) byKey.set(folderKey(f.path), f);
        for (const k of folderPaths) enqueue(k);
      },
      () => undefined,
    );
  };

  let files = 0;
  /** What the files before READ_AHEAD_AFTER_FILES asked for, started with that file. */
  let waiting: (() => void)[] | undefined = [];
  const onFile = (file: ParsedFile) => {
    if (stopped) return;
    files++;
    const act = (start: () => void) => (waiting !== undefined ? waiting.push(start) : start());
    for (const doc of file.documents) {
      const d = doc.data;
      if (!isRecord(d) || !isRecord(d.metadata)) continue;
      const names = d.metadata.environments;
      if (names !== undefined && !(Array.isArray(names) && names.includes(env.name))) continue;
      const name = d.metadata.name;
      if (typeof name !== 'string' || name.includes('${')) continue;
      const kind = MANIFEST_KINDS.find((k) => k === d.kind);
      if (kind === undefined) continue;
      const ahead = KIND_IO[kind].readAhead;
      switch (ahead) {
        case 'task-lists':
          act(startTaskReads);
          break;
        case 'acl-lists':
          act(startAclReads);
          break;
        case 'folder-acl':
          act(() => addFolder(name));
          break;
        case 'none':
          break;
        default: {
          const never: never = ahead;
          throw new Error(`unknown read ahead ${String(never)}`);
        }
      }
    }
    if (waiting !== undefined && files >= READ_AHEAD_AFTER_FILES) {
      const now = waiting;
      waiting = undefined;
      for (const start of now) start();
    }
  };

  return {
    readers: {
      ...(automation !== undefined ? { automation: takingStarted(automation, started) } : {}),
      ...(transfer !== undefined ? { transfer: takingStarted(transfer, started) } : {}),
    },
    onFile,
    stop: () => {
      stopped = true;
      queue.length = 0;
    },
    close: () => {
      stopped = true;
      queue.length = 0;
      return clients.close();
    },
  };
}

/**
 * The view with each read method first looking for a read started under its name (and its one
 * argument, for `listFolderAcls`): taken once, so a second call reads the server again, as it
 * would have without the prefetch.
 */
function takingStarted<T extends object>(view: T, started: Map<string, Promise<unknown>>): T {
  const out: Record<string, unknown> = {};
  for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(view))) {
    const fn: unknown = descriptor.value;
    if (typeof fn !== 'function') {
      Object.defineProperty(out, name, descriptor);
      continue;
    }
    out[name] = (...args: unknown[]): unknown => {
      const key = args.length === 0 ? name : args.length === 1 && name === 'listFolderAcls' ? `${name}:${String(args[0])}` : undefined;
      const early = key !== undefined ? started.get(key) : undefined;
      if (early !== undefined && early !== TAKEN) {
        // A placeholder stays, so the same read is not started ahead again.
        started.set(key!, TAKEN);
        return early;
      }
      return (fn as (...a: unknown[]) => unknown)(...args);
    };
  }
  return Object.freeze(out) as T;
}

/** Marks a read already taken by its reader. */
const TAKEN: Promise<unknown> = Promise.resolve(undefined);
