/**
 * The files `npm i -D mftops` leaves in a project folder, reduced to what `mftops init` looks
 * for (a package.json that declares mftops, its lock file, and the package's action.yml and
 * bundle), as `testdir` takes them. test/package/install.test.ts installs the real package.
 */
export function installedMftops(folder = ''): Record<string, string> {
  const at = folder === '' ? '' : `${folder}/`;
  return {
    [`${at}package.json`]: `${JSON.stringify({ devDependencies: { mftops: '^0.1.0' } })}\n`,
    [`${at}package-lock.json`]: `${JSON.stringify({ lockfileVersion: 3, packages: {} })}\n`,
    [`${at}node_modules/mftops/package.json`]: `${JSON.stringify({ name: 'mftops', version: '0.1.0' })}\n`,
    [`${at}node_modules/mftops/action.yml`]: 'name: mftops\nruns:\n  using: node24\n  main: dist-action/index.mjs\n',
    [`${at}node_modules/mftops/dist-action/index.mjs`]: '// the bundle\n',
  };
}
