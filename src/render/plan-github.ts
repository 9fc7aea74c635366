import type { Action, Plan, SourceRef } from '../plan/model.js';
import { workflowCommand, type AnnotationPlace } from './diagnostics.js';
import { actionPhrase } from './plan-common.js';
import { renderPlanMarkdown } from './plan-markdown.js';
import { policyAnnotations } from './policy.js';
import { renderChangeText } from './plan-text.js';
import { escapeControl } from './text.js';

/** Longest annotation message, in characters: the markdown that follows holds the rest. */
export const ANNOTATION_MESSAGE_MAX = 4_000;

/**
 * `mftops plan --format github`: one workflow-command annotation per change a reviewer should
 * look at (every action but no-op), at the manifest's file and line when the change has one (a
 * delete of an unmanaged object has none), then the markdown plan for the log or a job summary.
 * Creates and updates are notices; replaces, deletes and blocked changes are warnings. The
 * annotation's title is the change's header (`Task/x will be updated`), its message the change's
 * details as the text plan gives them. Policy violations come first (`policyAnnotations`): an
 * error per `deny`, a warning per `warn`.
 */
export function renderPlanGithub(plan: Plan): string {
  const policies = policyAnnotations(plan.policy).map((l) => `${l}\n`);
  const annotations = plan.changes.flatMap((c) => {
    const level = annotationLevel(c.action);
    return level === undefined ? [] : [`${annotation(level, c.source, `${escapeControl(c.address)} ${actionPhrase(c.action)}`, renderChangeText(c))}\n`];
  });
  return `${policies.join('')}${annotations.join('')}${renderPlanMarkdown(plan)}`;
}

function annotationLevel(action: Action): 'notice' | 'warning' | undefined {
  switch (action) {
    case 'create':
    case 'update':
      return 'notice';
    case 'replace':
    case 'delete':
    case 'blocked':
      return 'warning';
    case 'no-op':
      return undefined;
    default: {
      const never: never = action;
      throw new Error(`unknown action ${String(never)}`);
    }
  }
}

/**
 * An annotation of one object: `block` is its text block (header line, then details indented by
 * four spaces); the message is the details, or the header when there are none, cut at
 * `ANNOTATION_MESSAGE_MAX`.
 */
export function annotation(level: 'notice' | 'warning', source: SourceRef | undefined, title: string, block: readonly string[]): string {
  const place: AnnotationPlace = { ...(source !== undefined ? { file: source.file, line: source.line, col: source.col } : {}), title };
  const details = block.slice(1).map((l) => l.replace(/^ {4}/, ''));
  const message = (details.length > 0 ? details : block).join('\n');
  return workflowCommand(
    level,
    place,
    message.length > ANNOTATION_MESSAGE_MAX ? `${message.slice(0, ANNOTATION_MESSAGE_MAX)}\n… (cut: the markdown below has the rest)` : message,
  );
}
