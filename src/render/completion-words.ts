/**
 * The words of shell completion the CLI's program names before any command runs (its
 * `completion <shell>` argument, its hidden environments command): a module of their own, so that
 * every command's start does not load the script generator (src/render/completion.ts; measured:
 * issue 29).
 */

/** The shells a script is written for. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** The hidden command the scripts run for the environments: one name a line, nothing on any error. */
export const ENVIRONMENTS_COMMAND = '__environments';
