import type { ImportReadContext } from '../kind-io.js';
import { importReader } from '../kind-io.js';
import type { TaskImportPart } from './to-manifest.js';

/** The tasks (filtered by the server when `--name` is a mask) and the host, script and date-list lists that turn their ids into names. */
export async function readTasksForImport(context: ImportReadContext): Promise<TaskImportPart> {
  const automation = importReader(context.automation, 'tasks', 'automation');
  const { name } = context.selection;
  const [tasks, hosts, custom, standard, dateLists] = await Promise.all([
    automation.listTasks(name !== undefined ? { name } : {}),
    automation.listHosts(),
    automation.listCustomScripts(),
    automation.listStandardScripts(),
    automation.listDateLists(),
  ]);
  return { tasks, hosts, scripts: [...custom, ...standard], dateLists };
}
