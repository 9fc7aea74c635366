// The worker thread of run-policy-checks.ts: evaluates the checks it is sent, in order, posting
// each outcome as it is known, so that the main thread can stop it when one runs over its budget
// (which starts at 'received': copying a large batch here is not the evaluation's time).
import { parentPort } from 'node:worker_threads';
import { evaluateCheck, type PolicyCheck } from '../policy/run-check.js';

const port = parentPort;
if (port !== null) {
  port.on('message', (checks: readonly PolicyCheck[]) => {
    port.postMessage('received');
    checks.forEach((check, index) => port.postMessage({ index, outcome: evaluateCheck(check) }));
  });
  port.postMessage('ready');
}
