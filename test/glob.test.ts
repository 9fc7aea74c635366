import { describe, expect, it } from 'vitest';
import { isPathGlob, matchesAddressGlob, matchesNameMask, matchesPathGlob, pathGlobRoot } from '../src/glob.js';

describe('address globs (drift.ignore address and path)', () => {
  it('* stands for any run of characters, slashes and dots included; case is ignored', () => {
    expect(matchesAddressGlob('Task/Nightly*', 'task/nightly cleanup')).toBe(true);
    expect(matchesAddressGlob('Task/*', 'FolderPermissions/Distribution')).toBe(false);
    expect(matchesAddressGlob('FolderPermissions/*', 'FolderPermissions/Distribution/Acme')).toBe(true);
    expect(matchesAddressGlob('Schedules*Days', 'Schedules.Schedule[0].Days')).toBe(true);
    expect(matchesAddressGlob('*', '')).toBe(true);
  });

  it('matches the whole text, and every other character is literal', () => {
    expect(matchesAddressGlob('Task/a.b (c)', 'Task/a.b (c)')).toBe(true);
    expect(matchesAddressGlob('Task/a.b', 'Task/aXb')).toBe(false);
    expect(matchesAddressGlob('Task/[x]+', 'Task/[x]+')).toBe(true);
    expect(matchesAddressGlob('Task/Night', 'Task/Nightly')).toBe(false);
    expect(matchesAddressGlob('Task/*ly', 'Task/Nightly\ncleanup')).toBe(false);
    expect(matchesAddressGlob('Task/*', 'Task/Nightly\ncleanup')).toBe(true);
  });
});

describe('name masks (import --name for tasks and ACLs, spec §4.1)', () => {
  it('x exact, x* starts with, *x ends with, *x*, contains, * and ** everything; case is ignored', () => {
    expect(matchesNameMask('*', 'anything')).toBe(true);
    expect(matchesNameMask('**', 'anything')).toBe(true);
    expect(matchesNameMask('pay*', 'Payroll')).toBe(true);
    expect(matchesNameMask('*ROLL', 'Payroll')).toBe(true);
    expect(matchesNameMask('*yro*', 'Payroll')).toBe(true);
    expect(matchesNameMask('Payroll', 'payroll')).toBe(true);
    expect(matchesNameMask('Pay', 'Payroll')).toBe(false);
    expect(matchesNameMask('roll*', 'Payroll')).toBe(false);
  });

  it('only a leading and a trailing * are wildcards: an inner one, and any other character, is literal', () => {
    expect(matchesNameMask('p*l', 'Payroll')).toBe(false);
    expect(matchesNameMask('p*l', 'P*L')).toBe(true);
    expect(matchesNameMask('a**', 'a*bc')).toBe(true);
    expect(matchesNameMask('a**', 'abc')).toBe(false);
    expect(matchesNameMask('***', 'x*y')).toBe(true);
    expect(matchesNameMask('***', 'xy')).toBe(false);
    expect(matchesNameMask('a.c*', 'abcd')).toBe(false);
  });
});

describe('folder path globs (import --name for folders)', () => {
  it('* within one folder name, ** across folders; case and trailing slashes are ignored', () => {
    expect(matchesPathGlob('/Distribution/*', '/Distribution/Acme')).toBe(true);
    expect(matchesPathGlob('/Distribution/*', '/Distribution/Acme/Outbound')).toBe(false);
    expect(matchesPathGlob('/Distribution/**', '/distribution/Acme/Outbound')).toBe(true);
    expect(matchesPathGlob('/Distribution/*/Outbound/', '/Distribution/Acme/outbound/')).toBe(true);
    expect(matchesPathGlob('/Distribution/A*', '/Distribution/Acme')).toBe(true);
    expect(matchesPathGlob('/Dist.ribution', '/DistXribution')).toBe(false);
  });

  it('a pattern without * names one folder; the walk starts at the names before the first wildcard, spelled as given', () => {
    expect(isPathGlob('/Distribution/Acme')).toBe(false);
    expect(isPathGlob('/Distribution/*')).toBe(true);
    expect(pathGlobRoot('/Distribution/*/Outbound')).toBe('/Distribution');
    expect(pathGlobRoot('/DISTRIBUTION/Acme*/x')).toBe('/DISTRIBUTION');
    expect(pathGlobRoot('/**')).toBe('/');
    expect(pathGlobRoot('/Distribution/Acme/')).toBe('/Distribution/Acme');
  });
});
