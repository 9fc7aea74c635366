import { parseAllDocuments } from 'yaml';
import type { DriftIgnoreRule } from '../config/model.js';
import { isRecord } from '../is-record.js';
import type { ManifestEdit } from './edit-manifest-text.js';
import type { AcknowledgementNote } from './model.js';

/**
 * One object adoption wrote into the manifests, as the acknowledgements see it: every address it
 * answers to (an ACL's label and `resourceGroup/userGroup`), and the drift paths adopted
 * (`Info.Description`, `entries.group:Acme`, `members`); `whole`: its document was removed or
 * written new, so every rule for it is spent.
 */
export interface AdoptedForAcknowledgement {
  readonly address: string;
  readonly addresses: readonly string[];
  readonly paths: readonly string[] | 'whole';
  /** Its drift paths that were not adopted (refused): a rule covering one of them still acknowledges it. */
  readonly refused?: readonly string[];
}

/**
 * Whether `rule` names one of `addresses` and covers the difference at `path` (undefined: any):
 * the drift report's own judgement (src/drift/acknowledge.ts `ruleCovers`), passed in.
 */
export type RuleCovers = (rule: DriftIgnoreRule, addresses: readonly string[], path: string | undefined) => boolean;

/** The rules adoption spends, as edits of mftops.yaml, and the pattern rules it leaves (they cover other objects too). */
export interface AcknowledgementClearing {
  readonly cleared: readonly AcknowledgementNote[];
  readonly kept: readonly AcknowledgementNote[];
  /** Edits of mftops.yaml (its first YAML document); empty when no rule is cleared. */
  readonly edits: readonly ManifestEdit[];
}

/**
 * Which `drift.ignore` rules of `environment` an adoption spends (pure). A rule is spent when it
 * names an adopted object by its address (no `*`) and covers a difference adopted (its `path`, or
 * the whole object): the difference it accepted is now what git says, so keeping it would hide
 * the next change to the same field. A rule written as a pattern is left, named in `kept`: it may
 * stand for objects that were not adopted, and rewriting it into a list would be a guess. So is a
 * rule that also covers a difference of the object that was refused (`notAdopted`). When
 * every rule of the environment is spent, `drift` goes too (an empty `ignore:` does not load).
 */
export function clearAcknowledgements(
  rules: readonly DriftIgnoreRule[],
  adopted: readonly AdoptedForAcknowledgement[],
  environment: string,
  configText: string,
  covers: RuleCovers,
): AcknowledgementClearing {
  const cleared: AcknowledgementNote[] = [];
  const kept: AcknowledgementNote[] = [];
  const spent: number[] = [];
  rules.forEach((rule, index) => {
    const object = adopted.find((o) => (o.paths === 'whole' ? covers(rule, o.addresses, undefined) : o.paths.some((p) => covers(rule, o.addresses, p))));
    if (object === undefined) return;
    const note: AcknowledgementNote = { object: object.address, rule: ruleText(rule), where: rule.where };
    if (rule.address.includes('*')) {
      kept.push(note);
      return;
    }
    // A rule for the whole object (or a parent field) that also covers a difference not adopted
    // still acknowledges that one: removing it would make the next drift report it.
    const notAdopted = object.paths === 'whole' ? [] : (object.refused ?? []).filter((p) => covers(rule, object.addresses, p));
    if (notAdopted.length > 0) {
      kept.push({ ...note, notAdopted });
      return;
    }
    cleared.push(note);
    spent.push(index);
  });
  if (spent.length === 0) return { cleared, kept, edits: [] };
  const drift = ['environments', environment, 'drift'];
  if (spent.length < rules.length)
    return { cleared, kept, edits: spent.map((i): ManifestEdit => ({ op: 'delete', document: 0, path: [...drift, 'ignore', i] })) };
  const settings = driftSettingsIn(configText, environment);
  const onlyIgnore = isRecord(settings) && Object.keys(settings).every((k) => k === 'ignore');
  return { cleared, kept, edits: [{ op: 'delete', document: 0, path: onlyIgnore ? drift : [...drift, 'ignore'] }] };
}

/** The rule as written, for a message: `Task/x`, `Task/x Info.Description`. */
function ruleText(rule: DriftIgnoreRule): string {
  return rule.path === undefined ? rule.address : `${rule.address} ${rule.path}`;
}

function driftSettingsIn(text: string, environment: string): unknown {
  const doc = parseAllDocuments(text)[0];
  const value: unknown = doc !== undefined && 'toJS' in doc ? doc.toJS() : undefined;
  if (!isRecord(value) || !isRecord(value.environments)) return undefined;
  const env = value.environments[environment];
  return isRecord(env) ? env.drift : undefined;
}
