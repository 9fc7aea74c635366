/** One measured run of the CLI (or of the per-object reader) in a child process, as run-bench's runCli gives it. */
export interface Run {
  readonly exitCode: number | null;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly peakRssMb: number;
  /**
   * CPU time of this (the bench) process while the child ran. The servers run in processes of
   * their own (bench/emulator-pair.ts): a scenario that sends requests reports theirs instead.
   */
  readonly emulatorCpuMs: number;
  readonly stdout: string;
  readonly stderr: string;
}
