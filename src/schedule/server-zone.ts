import { isRecord } from '../is-record.js';
import { withDefined } from '../with-defined.js';

/**
 * The automation server's time zone, read from `/info`'s `serverTimezoneInfo` (A §2.4:
 * `timeZoneName`, `timeZoneBias`, `daylightBias`, all strings, forms not shown). Schedules and
 * change windows are wall-clock times in this zone. The one place those forms are read (see
 * docs/server-variants.md, "Server time zone").
 */
export interface ServerZone {
  /** An IANA zone for calendar maths (DST included); absent when only a fixed offset is known. */
  readonly iana?: string;
  /** Windows bias in minutes, `UTC = local + bias`; used only when `iana` is absent. */
  readonly biasMinutes: number;
  /** The zone as the server named it (or `UTC+01:00` for a bias alone), for messages. */
  readonly label: string;
  /**
   * - `iana`: the server gave an IANA name;
   * - `windows`: a Windows zone name mapped to `iana` by WINDOWS_ZONES;
   * - `bias`: a name that could not be mapped: the fixed bias, DST unknown (`note` says so);
   * - `unknown`: neither a usable name nor a bias: UTC is assumed (`note` says so).
   */
  readonly source: 'iana' | 'windows' | 'bias' | 'unknown';
  /** Why the zone is approximate, for the plan and apply to say. */
  readonly note?: string;
  /**
   * For `bias`: the server's non-zero `daylightBias` (minutes added to the bias in summer). When
   * it is kept is unknown, so a change window is open only when open at both offsets.
   */
  readonly daylightBiasMinutes?: number;
}

/** The common Windows zone names (CLDR windowsZones, territory 001), their daylight names too. */
const WINDOWS_ZONES: Readonly<Record<string, string>> = {
  UTC: 'UTC',
  'Coordinated Universal Time': 'UTC',
  'GMT Standard Time': 'Europe/London',
  'Greenwich Standard Time': 'Atlantic/Reykjavik',
  'W. Europe Standard Time': 'Europe/Berlin',
  'Central Europe Standard Time': 'Europe/Budapest',
  'Central European Standard Time': 'Europe/Warsaw',
  'Romance Standard Time': 'Europe/Paris',
  'E. Europe Standard Time': 'Europe/Chisinau',
  'FLE Standard Time': 'Europe/Kiev',
  'GTB Standard Time': 'Europe/Bucharest',
  'Russian Standard Time': 'Europe/Moscow',
  'Turkey Standard Time': 'Europe/Istanbul',
  'Israel Standard Time': 'Asia/Jerusalem',
  'South Africa Standard Time': 'Africa/Johannesburg',
  'Arabian Standard Time': 'Asia/Dubai',
  'India Standard Time': 'Asia/Kolkata',
  'China Standard Time': 'Asia/Shanghai',
  'Singapore Standard Time': 'Asia/Singapore',
  'Tokyo Standard Time': 'Asia/Tokyo',
  'Korea Standard Time': 'Asia/Seoul',
  'AUS Eastern Standard Time': 'Australia/Sydney',
  'New Zealand Standard Time': 'Pacific/Auckland',
  'Eastern Standard Time': 'America/New_York',
  'Central Standard Time': 'America/Chicago',
  'Mountain Standard Time': 'America/Denver',
  'US Mountain Standard Time': 'America/Phoenix',
  'Pacific Standard Time': 'America/Los_Angeles',
  'Alaskan Standard Time': 'America/Anchorage',
  'Hawaiian Standard Time': 'Pacific/Honolulu',
  'Atlantic Standard Time': 'America/Halifax',
  'E. South America Standard Time': 'America/Sao_Paulo',
  'Mexico Standard Time': 'America/Mexico_City',
  'Central Standard Time (Mexico)': 'America/Mexico_City',
};

const BY_LOWER_NAME = new Map(Object.entries(WINDOWS_ZONES).map(([k, v]) => [k.toLowerCase(), v]));

/** What an unread `/info` (no automation service) gives: UTC. */
export const UTC_ZONE: ServerZone = { iana: 'UTC', biasMinutes: 0, label: 'UTC', source: 'iana' };

/**
 * The zone of an `/info` answer. Accepts an IANA name, a Windows name (standard or daylight
 * spelling) from WINDOWS_ZONES, else the bias (a whole number of minutes as a string or number).
 */
export function readServerZone(info: unknown): ServerZone {
  const tz = isRecord(info) && isRecord(info.serverTimezoneInfo) ? info.serverTimezoneInfo : {};
  const name = typeof tz.timeZoneName === 'string' ? tz.timeZoneName.trim() : '';
  const bias = readMinutes(tz.timeZoneBias);
  if (name !== '' && isIanaZone(name)) return { iana: name, biasMinutes: bias ?? 0, label: name, source: 'iana' };
  const mapped = BY_LOWER_NAME.get(name.replace(/ Daylight Time$/i, ' Standard Time').toLowerCase());
  if (mapped !== undefined) return { iana: mapped, biasMinutes: bias ?? 0, label: name, source: 'windows' };
  if (bias !== undefined) {
    const label = name !== '' ? name : formatOffset(-bias);
    const daylight = readMinutes(tz.daylightBias);
    return {
      biasMinutes: bias,
      label,
      source: 'bias',
      ...withDefined({ daylightBiasMinutes: daylight !== 0 ? daylight : undefined }),
      note: `the server's time zone ${JSON.stringify(name)} is not known to mftops: times use its fixed offset ${formatOffset(-bias)}, without daylight saving`,
    };
  }
  return {
    iana: 'UTC',
    biasMinutes: 0,
    label: 'UTC',
    source: 'unknown',
    note: 'the server did not give a usable time zone (/info serverTimezoneInfo): times are taken as UTC',
  };
}

function readMinutes(value: unknown): number | undefined {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  return /^[+-]?\d{1,4}$/.test(text) ? Number(text) : undefined;
}

function isIanaZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** `UTC+01:00` for an offset of +60 minutes (local − UTC). */
export function formatOffset(offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** A wall-clock reading in the server's zone. `weekday` 0 = Monday … 6 = Sunday. */
export interface LocalTime {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly weekday: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
/**
 * Offsets already computed, by zone and then by minute since the epoch (the offset depends on
 * nothing finer): `formatToParts` was most of a plan calendar's CPU (measured: ~40 calls per
 * changed task, many for the same minutes). Emptied when it grows large.
 */
const offsets = new Map<string, Map<number, number>>();
const MAX_CACHED_OFFSETS = 100_000;

/** Minutes to add to UTC to get the zone's wall clock at `ms`. */
export function offsetAt(ms: number, zone: ServerZone): number {
  if (zone.iana === undefined) return -zone.biasMinutes;
  const minute = Math.floor(ms / 60_000);
  let known = offsets.get(zone.iana);
  if (known === undefined) offsets.set(zone.iana, (known = new Map()));
  const cached = known.get(minute);
  if (cached !== undefined) return cached;
  if (known.size >= MAX_CACHED_OFFSETS) known.clear();
  const offset = computeOffset(ms, zone.iana);
  known.set(minute, offset);
  return offset;
}

function computeOffset(ms: number, iana: string): number {
  let f = formatters.get(iana);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: iana,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    formatters.set(iana, f);
  }
  const p = Object.fromEntries(f.formatToParts(new Date(ms)).map((x) => [x.type, x.value]));
  const asUtc = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute));
  return Math.round((asUtc - Math.floor(ms / 60_000) * 60_000) / 60_000);
}

/** The wall clock of the zone at `ms`. */
export function localTimeOf(ms: number, zone: ServerZone): LocalTime {
  const d = new Date(ms + offsetAt(ms, zone) * 60_000);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    weekday: (d.getUTCDay() + 6) % 7,
  };
}

/**
 * The instant of a wall-clock time in the zone. A time that occurs twice (clocks going back) is
 * its first occurrence; a time that does not occur (clocks going forward) is moved on by the gap,
 * as a scheduler that wakes at the next minute would run it.
 */
export function instantOf(year: number, month: number, day: number, minuteOfDay: number, zone: ServerZone): number {
  const asUtc = Date.UTC(year, month - 1, day, 0, minuteOfDay);
  const before = offsetAt(asUtc - 86_400_000, zone);
  const after = offsetAt(asUtc + 86_400_000, zone);
  const fits = (offset: number): number | undefined => {
    const t = asUtc - offset * 60_000;
    return offsetAt(t, zone) === offset ? t : undefined;
  };
  const candidates = [fits(before), fits(after)].filter((t): t is number => t !== undefined);
  if (candidates.length > 0) return Math.min(...candidates);
  return asUtc - before * 60_000;
}

/** `yyyy-mm-dd` of a local date. */
export function dateText(t: Pick<LocalTime, 'year' | 'month' | 'day'>): string {
  return `${String(t.year).padStart(4, '0')}-${String(t.month).padStart(2, '0')}-${String(t.day).padStart(2, '0')}`;
}
