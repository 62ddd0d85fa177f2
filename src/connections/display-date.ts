/**
 * The human-readable date-time of vendor connection entries (docs/api.md "Vendor
 * connections"): `21st November 2026, 03:15 PM` in the display time zone.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      day: 'numeric',
      month: 'long',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hour12: true,
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** English ordinal suffix of a day of month: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st… */
export function ordinal(day: number): string {
  const mod100 = day % 100;
  if (mod100 >= 11 && mod100 <= 13) return `${day}th`;
  return `${day}${({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[day % 10] ?? 'th'}`;
}

/** Formats `date` in `timeZone` (IANA name) as `21st November 2026, 03:15 PM`; null → `NOT AVAILABLE`. */
export function displayDate(date: Date | null, timeZone: string): string {
  if (!date) return 'NOT AVAILABLE';
  const parts = Object.fromEntries(
    formatter(timeZone)
      .formatToParts(date)
      .map((p) => [p.type, p.value]),
  );
  const hour = String(Number(parts.hour) === 0 ? 12 : Number(parts.hour)).padStart(2, '0');
  const period = String(parts.dayPeriod ?? '').toUpperCase();
  return `${ordinal(Number(parts.day))} ${parts.month} ${parts.year}, ${hour}:${parts.minute} ${period}`;
}
