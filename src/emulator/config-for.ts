/**
 * An `mftops.yaml` with one environment pointing at a running emulator, for the demo, end-to-end
 * tests and benchmarks. Passwords are written as `${env:}`/`${file:}` references, as in any real
 * configuration; the caller puts the values in the environment or a file.
 */
export interface EmulatorConfigOptions {
  readonly environment?: string;
  /** Omit a URL to leave that service out of the environment. */
  readonly automationUrl?: string;
  readonly transferUrl?: string;
  /** The accounts; default `admin`, the empty state's. */
  readonly automationUsername?: string;
  readonly transferUsername?: string;
  /** Reference text; default `${env:MFT_AUTOMATION_PASSWORD}`. */
  readonly automationPassword?: string;
  /** Reference text; default `${env:MFT_TRANSFER_PASSWORD}`. */
  readonly transferPassword?: string;
  readonly manifests?: readonly string[];
  readonly scope?: { readonly taskGroups?: readonly string[]; readonly folders?: readonly string[] };
  /** `automation.transferHosts`: the hosts the cross-server checks look at. */
  readonly transferHosts?: readonly string[];
}

export function emulatorConfigYaml(opts: EmulatorConfigOptions): string {
  return emulatorEnvironmentsYaml([opts]);
}

/** The same with several environments (each its `environment` name), e.g. one per emulator. */
export function emulatorEnvironmentsYaml(environments: readonly EmulatorConfigOptions[]): string {
  return ['apiVersion: mftops/v1', 'kind: Config', 'environments:', ...environments.flatMap(environmentLines), ''].join('\n');
}

function environmentLines(opts: EmulatorConfigOptions): string[] {
  const service = (url: string, username: string, password: string, extra = ''): string =>
    `{ url: ${JSON.stringify(url)}, username: ${/^[A-Za-z0-9_.@-]+$/.test(username) ? username : JSON.stringify(username)}, password: ${JSON.stringify(password)}${extra} }`;
  const transferHosts = opts.transferHosts ? `, transferHosts: ${JSON.stringify(opts.transferHosts)}` : '';
  return [
    `  ${opts.environment ?? 'lab'}:`,
    ...(opts.automationUrl
      ? [
          `    automation: ${service(opts.automationUrl, opts.automationUsername ?? 'admin', opts.automationPassword ?? '${env:MFT_AUTOMATION_PASSWORD}', transferHosts)}`,
        ]
      : []),
    ...(opts.transferUrl
      ? [`    transfer: ${service(opts.transferUrl, opts.transferUsername ?? 'admin', opts.transferPassword ?? '${env:MFT_TRANSFER_PASSWORD}')}`]
      : []),
    ...(opts.manifests ? [`    manifests: ${JSON.stringify(opts.manifests)}`] : []),
    ...(opts.scope ? [`    scope: { taskGroups: ${JSON.stringify(opts.scope.taskGroups ?? [])}, folders: ${JSON.stringify(opts.scope.folders ?? [])} }`] : []),
  ];
}
