import type { AppContext } from '../../src/app/context.js';
import type { AppEvent } from '../../src/app/events.js';
import { silentLogger } from '../../src/log.js';

/** An application context that keeps every event a use case emits, in order. */
export interface RecordingContext extends AppContext {
  readonly events: AppEvent[];
}

export function recordingContext(cwd: string, env: NodeJS.ProcessEnv = {}): RecordingContext {
  const events: AppEvent[] = [];
  return { cwd, env, logger: silentLogger, emit: (event) => events.push(event), events };
}

/** The notes and warnings among the events, as `kind: message` lines (progress left out). */
export function messagesOf(events: readonly AppEvent[]): string[] {
  return events.flatMap((e) => (e.kind === 'note' || e.kind === 'warning' ? [`${e.kind}: ${e.message}`] : []));
}
