/**
 * The named sets of `--profile` (what each fixes: NAMED_SETS in variants.ts). A module of their
 * own: the CLI lists them in `mftops emulator --help`, and every command builds that help, so it
 * takes them without loading the register of switches (measured: issue 29).
 */
export const PROFILES = ['current', 'legacy', 'divergent'] as const;
export type Profile = (typeof PROFILES)[number];
