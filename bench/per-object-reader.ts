import { readFileSync } from 'node:fs';
import { mapWithConcurrency } from '../src/map-with-concurrency.js';
import { Secret } from '../src/secret.js';
import { createAutomationClient, createTransferClient } from '../src/services/index.js';

/**
 * The measured peer of `mftops plan` (issue 19): what a per-resource refresh does, one GET per
 * object it already knows the id of (a state file), nothing listed. Run by run-bench in a child
 * process under GNU time, like the CLI. Argument: a JSON file of {@link ReaderInput}; passwords come
 * from BENCH_AUTOMATION_PW / BENCH_TRANSFER_PW. Prints one JSON line: requests sent and reads done.
 */
export interface ReaderInput {
  readonly automationUrl: string;
  readonly transferUrl: string;
  /** Ids as a refresh's state holds them. */
  readonly taskIds: readonly string[];
  readonly aclIds: readonly string[];
  readonly folderIds: readonly string[];
  /** Requests in flight over both servers (Terraform's default: 10). */
  readonly parallelism: number;
}

async function main(): Promise<void> {
  const input = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as ReaderInput;
  // The same client settings as the CLI's (src/app/clients.ts): keep-alive pool of max(8, parallelism).
  const connections = Math.max(8, input.parallelism);
  const automation = createAutomationClient({
    url: input.automationUrl,
    username: 'admin',
    password: new Secret(process.env.BENCH_AUTOMATION_PW ?? ''),
    connections,
  });
  const transfer = createTransferClient({ url: input.transferUrl, username: 'admin', password: new Secret(process.env.BENCH_TRANSFER_PW ?? ''), connections });
  try {
    const reads: (() => Promise<unknown>)[] = [
      ...input.taskIds.map((id) => () => automation.getTask(id)),
      ...input.aclIds.map((id) => () => automation.getResourceGroupAcl(id)),
      ...input.folderIds.flatMap((id) => [() => transfer.getFolder(id), () => transfer.listFolderAcls(id)]),
    ];
    await mapWithConcurrency(reads, input.parallelism, (read) => read());
    process.stdout.write(`${JSON.stringify({ reads: reads.length, requests: automation.requestCount + transfer.requestCount })}\n`);
  } finally {
    await Promise.all([automation.close(), transfer.close()]);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`per-object-reader: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
