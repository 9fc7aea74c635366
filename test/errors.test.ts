import { describe, expect, it } from 'vitest';
import { MftopsError, systemError, userMessageOf } from '../src/errors.js';

/** An error as Node's fs and net modules make them. */
function errno(code: string, syscall: string, extra: Record<string, unknown> = {}): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${syscall} failed`), { code, syscall, ...extra });
}

describe('userMessageOf', () => {
  it('words an operating-system error no edge wrapped: what, where, the reason and a hint', () => {
    expect(userMessageOf(errno('ENOSPC', 'write', { path: '/var/mftops/plan.json' }))).toBe(
      'cannot write to /var/mftops/plan.json: no space left on the device (ENOSPC): free some space, or choose a path on another disk',
    );
    expect(userMessageOf(errno('EROFS', 'open', { path: '/mnt/ro/plan.json' }))).toBe(
      'cannot open /mnt/ro/plan.json: the file system is read-only (EROFS): choose a path on a writable file system',
    );
    expect(userMessageOf(errno('EMFILE', 'open', { path: '/tmp/x' }))).toMatch(
      /^cannot open \/tmp\/x: too many open files \(EMFILE\): raise the limit of open files \(ulimit -n\), or lower --parallelism$/,
    );
    expect(userMessageOf(errno('ENOSPC', 'write'))).toBe(
      'write failed: no space left on the device (ENOSPC): free some space, or choose a path on another disk',
    );
    expect(userMessageOf(errno('EADDRINUSE', 'listen', { address: '127.0.0.1', port: 8080 }))).toBe(
      'cannot listen on 127.0.0.1:8080: the address is in use (EADDRINUSE): pick another port, or stop the process that holds it',
    );
  });

  it('gives MftopsError messages as they are, and nothing for a bug (a TypeError, an unknown code)', () => {
    expect(userMessageOf(new MftopsError('plan file x.json not found'))).toBe('plan file x.json not found');
    expect(userMessageOf(new TypeError("Cannot read properties of undefined (reading 'name')"))).toBeUndefined();
    expect(userMessageOf(errno('ERR_SOMETHING', 'open'))).toBeUndefined();
    expect(userMessageOf(Object.assign(new Error('no syscall'), { code: 'EACCES' }))).toBeUndefined();
  });
});

describe('systemError', () => {
  it('keeps only the code of an error it has no words for', () => {
    expect(systemError('cannot write x', errno('EBUSY', 'open')).message).toBe('cannot write x (EBUSY)');
    expect(systemError('cannot write x', errno('EACCES', 'open')).message).toBe(
      'cannot write x: permission denied (EACCES): check the permissions of the file and its folder, or choose another path',
    );
  });
});
