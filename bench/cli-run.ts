/** One measured run of the CLI (or of the per-object reader) in a child process, as run-bench's runCli gives it. */
export interface Run {
  readonly exitCode: number | null;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly peakRssMb: number;
  /**
   * CPU time of this (the bench) process while the child ran: the emulator's, which competes with
   * the child for the 2 cores. When it approaches the wall time, the emulator is the limit.
   */
  readonly emulatorCpuMs: number;
  readonly stdout: string;
  readonly stderr: string;
}
