import { initProject } from '../../app/init.js';
import { displayPath } from '../../render/diagnostics.js';
import type { CommandIo, GlobalOptions } from '../io.js';
import { renderJsonOutput } from '../../render/json-output.js';
import { writeError } from './common.js';
import { withDefined } from '../../with-defined.js';

export interface InitCommandOptions {
  readonly dir?: string;
  readonly force: boolean;
  readonly actionRef?: string;
}

/**
 * `mftops init [DIR] [--force] [--action-ref OWNER/REPO@REF]`: the view of `initProject`. The files written on stdout, then
 * what to do next; a refusal to overwrite names the files on stderr. Exit 0 written, 1 refused.
 */
export async function runInit(g: GlobalOptions, opts: InitCommandOptions, io: CommandIo): Promise<number> {
  const result = initProject(
    {
      ...withDefined({
        dir: opts.dir,
        environment: g.env,
      }),
      force: opts.force,
      ...withDefined({ actionRef: opts.actionRef }),
    },
    { cwd: io.cwd },
  );
  switch (result.status) {
    case 'exists': {
      const message = `${result.files.length} of the files to write already exist; nothing was written (use --force to overwrite them):`;
      const files = result.files.map((f) => displayPath(f, io.cwd));
      writeError(g, io, `${message} ${files.join(', ')}`, `mftops: error: ${message}\n${files.map((f) => `  ${f}`).join('\n')}`);
      return 1;
    }
    case 'written': {
      const files = result.files.map((f) => displayPath(f, io.cwd));
      if (g.format === 'json') {
        io.stdout(renderJsonOutput('mftops.init', { dir: displayPath(result.dir, io.cwd), files, action: result.action }));
        return 0;
      }
      io.stdout(files.map((f) => `${f}\n`).join(''));
      if (!g.quiet) {
        const cd = displayPath(result.dir, io.cwd) === '.' ? '' : `cd ${displayPath(result.dir, io.cwd)} && `;
        io.stderr(
          `mftops: note: next, put your servers' URLs in mftops.yaml and your objects in manifests/, then: ${cd}mftops validate && mftops status && mftops plan ` +
            '(set MFT_AUTOMATION_USER, MFT_AUTOMATION_PASSWORD, MFT_TRANSFER_USER and MFT_TRANSFER_PASSWORD first; in GitHub, as secrets of the environments the workflows name)\n' +
            (result.action.startsWith('./')
              ? `mftops: note: the workflows run the action ${result.action}, which npm ci installs: commit package.json and package-lock.json\n`
              : ''),
        );
      }
      return 0;
    }
    default: {
      const never: never = result;
      throw new Error(`unknown init result ${JSON.stringify(never)}`);
    }
  }
}
