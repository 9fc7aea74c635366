import { checkExecutionOrder } from './execution-order.js';
import { isApplyable } from './model.js';
import type { Plan } from './model.js';

/** Why an errored plan is never saved or applied (one line, with what to do). */
export const ERRORED_PLAN = 'the plan was made with errors that left objects out of it: it can be shown, never saved or applied; fix the errors and plan again';

/**
 * Why a plan must not be applied, one line each; empty when it may (pure). Apply and the plan
 * file reader both ask: an errored plan, one whose own flags contradict its changes, one whose
 * execution order is broken (apply follows the order as given, so it must hold).
 */
export function checkPlan(plan: Plan): string[] {
  if (plan.errored) return [ERRORED_PLAN];
  const problems: string[] = [];
  if (plan.applyable !== isApplyable(plan.errored, plan.changes)) {
    problems.push(
      `the plan is marked ${plan.applyable ? 'applyable, but no change writes anything' : 'not applyable, but changes write'}: make the plan again`,
    );
  }
  const order = checkExecutionOrder(plan.changes);
  if (order.length > 0) problems.push(`the plan's execution order is broken (${order.join('; ')}): make the plan again`);
  return problems;
}
