import type { AdoptedFileObject, AdoptionReport } from '../adopt/model.js';
import { attributionText } from './drift-common.js';
import { escapeControl } from './text.js';

/**
 * What `mftops drift --adopt` changed, file by file: each object with the fields it took from the
 * server and who changed it last (where the audit report says), then what was not adopted and
 * why, the placeholders to set, and a closing sentence. With `--dry-run`, each file's unified diff
 * in place of the list, and nothing was written.
 */
export function renderAdoptionText(report: AdoptionReport): string {
  const lines: string[] = [];
  const verb = report.dryRun ? 'would change' : 'changed';
  if (report.files.length > 0) {
    lines.push(`mftops drift --adopt for environment "${escapeControl(report.environment)}" ${verb} the manifests:`);
    for (const f of report.files) {
      lines.push('', `${escapeControl(f.path)}${f.action === 'edited' ? '' : ` (${f.action === 'created' ? 'new file' : 'file removed: no document left'})`}`);
      for (const o of f.objects) lines.push(...objectLines(o));
      // mftops.yaml: the file with no object is the one whose acknowledgements adoption spent.
      if (f.objects.length === 0)
        for (const c of report.acknowledgements?.cleared ?? [])
          lines.push(`  - acknowledgement cleared: ${escapeControl(c.rule)} (${escapeControl(c.where)}), adopted with ${escapeControl(c.object)}`);
      if (report.dryRun) lines.push('', ...f.diff.trimEnd().split('\n').map(escapeControl));
    }
  } else lines.push(`mftops drift --adopt for environment "${escapeControl(report.environment)}": nothing to adopt.`);
  for (const address of report.inSync) lines.push(`  = ${escapeControl(address)}: in sync, nothing to adopt`);
  if (report.refused.length > 0) {
    lines.push('', 'Not adopted:');
    for (const r of report.refused)
      lines.push(`  ! ${escapeControl(r.address)}${r.path === undefined ? '' : ` ${escapeControl(r.path)}`}: ${escapeControl(r.reason)}`);
  }
  lines.push(...acknowledgementLines(report));
  if (report.secrets.length > 0) {
    lines.push('', 'The new manifests hold these placeholders for secrets the server does not show; set them before plan:');
    for (const s of report.secrets) lines.push(`  ${s.variable}  (${escapeControl(s.address)} ${escapeControl(s.field)})`);
  }
  if (report.audit.state === 'unreadable') lines.push('', `Note: ${escapeControl(report.audit.message)}; who changed what is not shown.`);
  lines.push('', closing(report));
  return `${lines.join('\n')}\n`;
}

/** Acknowledgements adoption did not remove: a pattern that covers an adopted object, objects whose acknowledged differences it left alone. */
function acknowledgementLines(report: AdoptionReport): string[] {
  const a = report.acknowledgements;
  if (a === undefined || a.kept.length + a.leftAlone.length === 0) return [];
  const lines = ['', 'Acknowledged drift (drift.ignore) left as it is:'];
  for (const k of a.kept)
    lines.push(
      k.notAdopted === undefined
        ? `  * ${escapeControl(k.rule)} (${escapeControl(k.where)}) covers ${escapeControl(k.object)}, adopted: not removed, it is a pattern that may cover other objects; narrow or remove it by hand`
        : `  * ${escapeControl(k.rule)} (${escapeControl(k.where)}) covers ${escapeControl(k.object)}, adopted in part: not removed, it still acknowledges ${k.notAdopted.map(escapeControl).join(', ')}, not adopted`,
    );
  for (const address of a.leftAlone)
    lines.push(
      `  * ${escapeControl(address)}: its acknowledged differences were not adopted; name it (drift --adopt ADDRESS) to adopt them and clear the acknowledgement`,
    );
  return lines;
}

function objectLines(o: AdoptedFileObject): string[] {
  const who = o.lastChange === undefined ? [] : [`      last change: ${attributionText(o.lastChange)}`];
  switch (o.outcome) {
    case 'changed':
      return [`  ~ ${escapeControl(o.address)}: ${o.paths.map(escapeControl).join(', ')} as on the server`, ...who];
    case 'removed':
      return [`  - ${escapeControl(o.address)}: deleted on the server, its document removed`, ...who];
    case 'created':
      return [`  + ${escapeControl(o.address)}: created on the server, written as import would`, ...who];
    default: {
      const never: never = o.outcome;
      throw new Error(`unknown adoption outcome ${String(never)}`);
    }
  }
}

function closing(report: AdoptionReport): string {
  const objects = report.files.reduce((n, f) => n + f.objects.length, 0);
  const files = report.files.length;
  const refused = new Set(report.refused.map((r) => r.address)).size;
  const done = report.dryRun
    ? `Dry run: ${plural(objects, 'object')} in ${plural(files, 'file')} would be adopted; nothing was written.`
    : `${plural(objects, 'object')} adopted in ${plural(files, 'file')}.`;
  const left = refused > 0 ? ` ${plural(refused, 'object')} not (fully) adopted.` : '';
  const next = !report.dryRun && objects > 0 ? ' Review the diff, then run mftops plan: it shows no change for what was adopted.' : '';
  return `${done}${left}${next}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
