import { explainCode } from '../../app/explain.js';
import { renderExplainJson, renderExplainMarkdown, renderExplainText } from '../../render/explain.js';
import type { CommandIo, GlobalOptions } from '../io.js';
import { writeError } from './common.js';

/**
 * `mftops explain [CODE]`: the view of `explainCode`. The explanation (or, without a code, the
 * list of codes) on stdout; exit 0, or 1 for a code that does not exist.
 */
export async function runExplain(g: GlobalOptions, code: string | undefined, io: CommandIo): Promise<number> {
  const report = explainCode(code !== undefined ? { code } : {});
  if (report.status === 'unknown') {
    const mean = report.suggestion !== undefined ? ` — did you mean ${report.suggestion}?` : '';
    writeError(g, io, `no diagnostic code ${JSON.stringify(report.query)}${mean} (mftops explain lists them)`);
    return 1;
  }
  switch (g.format) {
    case 'json':
      io.stdout(renderExplainJson(report));
      break;
    case 'markdown':
      io.stdout(renderExplainMarkdown(report));
      break;
    case 'text':
    case 'github':
      io.stdout(renderExplainText(report));
      break;
  }
  return 0;
}
