import { readFileSync } from 'node:fs';
import { it } from 'vitest';
import { editManifestText, documentIndexAt } from '../../src/adopt/edit-manifest-text.js';
import { schemaKeyOrder } from '../../src/manifest/canonical-form.js';
it('perf', () => {
  const one = readFileSync('examples/manifests/tasks/finance.yaml', 'utf8').split('---\n')[0]!;
  const big = Array.from({ length: 10000 }, () => one).join('---\n');
  for (let k = 0; k < 3; k++) {
    let t = performance.now();
    const r = editManifestText(big, [
      { op: 'set', document: 5000, path: ['spec', 'Info', 'Description'], value: 'x' },
      { op: 'append', document: 9999, path: ['spec', 'steps'], value: { Process: { Script: 'S', Run: 'per-file' } } },
      { op: 'delete', document: 17, path: ['spec', 'steps', 1] },
      { op: 'remove-document', document: 3 },
      { op: 'add-document', value: { apiVersion: 'mftops/v1', kind: 'Task', metadata: { name: 'n' }, spec: { Active: true } } },
    ], { keyOrder: schemaKeyOrder });
    const a = performance.now() - t;
    t = performance.now();
    const idx = documentIndexAt(big, 250000);
    const b = performance.now() - t;
    t = performance.now();
    const edits = Array.from({ length: 100 }, (_, i) => ({ op: 'set' as const, document: i * 100, path: ['spec', 'Info', 'Description'], value: 'y' }));
    const r2 = editManifestText(big, edits);
    const c = performance.now() - t;
    console.log(`bytes=${big.length} five edits ${a.toFixed(0)} ms ok=${r.ok}; documentIndexAt ${b.toFixed(0)} ms -> ${idx}; 100 docs edited ${c.toFixed(0)} ms ok=${r2.ok}`);
  }
});
