import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { captureIo } from '../../src/cli/io.js';
import { createProgress } from '../../src/cli/progress.js';

describe('progress on stderr', () => {
  it('draws nothing unless stderr is a terminal, and nothing with --quiet', () => {
    for (const [tty, quiet] of [
      [false, false],
      [true, true],
    ] as const) {
      const io = { ...captureIo(), stderrIsTty: tty };
      const p = createProgress(io, quiet);
      p.report(1, 10, 'folders');
      p.finish();
      expect(io.err()).toBe('');
      expect(io.out()).toBe('');
    }
  });

  it('redraws one line in place at most every 100 ms, always shows the end, and erases itself', () => {
    let t = 0;
    const base = captureIo();
    const io = { ...base, stderrIsTty: true };
    const p = createProgress(io, false, () => t);
    p.report(1, 3, 'folders');
    t = 50;
    p.report(2, 3, 'folders'); // too soon: skipped
    t = 60;
    p.report(3, 3, 'folders'); // the end: always drawn
    p.finish();
    expect(base.err()).toBe('\r\u001b[2KReading live state: 1/3 folders\r\u001b[2KReading live state: 3/3 folders\r\u001b[2K');
    expect(base.out()).toBe('');
  });

  it('Ctrl-C or kill while a line is drawn erases it before anyone prints, then ends the process when nothing else listens', () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const base = captureIo();
      const source = new EventEmitter();
      const raised: string[] = [];
      const p = createProgress({ ...base, stderrIsTty: true }, false, () => 0, { source, raise: (s) => void raised.push(s) });
      p.report(3, 10, 'folders');
      source.emit(signal);
      // The line is ended: the shell's prompt (or "EXIT=130") starts on a clean line.
      expect(base.err()).toBe('\r\u001b[2KReading live state: 3/10 folders\r\u001b[2K');
      expect(raised).toEqual([signal]);
      expect(source.listenerCount(signal)).toBe(0);
    }
  });

  it('with apply listening for Ctrl-C, erases the line before apply speaks and leaves the stopping to apply', () => {
    const base = captureIo();
    const source = new EventEmitter();
    const raised: string[] = [];
    source.on('SIGINT', () => base.stderr('Interrupted: no new write starts\n'));
    const p = createProgress({ ...base, stderrIsTty: true }, false, () => 0, { source, raise: (s) => void raised.push(s) });
    p.report(1, 4, 'tasks');
    source.emit('SIGINT');
    expect(base.err()).toBe('\r\u001b[2KReading live state: 1/4 tasks\r\u001b[2KInterrupted: no new write starts\n');
    expect(raised).toEqual([]);
    p.finish();
    expect(source.listenerCount('SIGINT')).toBe(1);
  });
});
