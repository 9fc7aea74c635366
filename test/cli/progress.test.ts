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
});
