/** How long ago `iso` was, from `now` (epoch ms), in the largest whole unit: `45 s`, `12 min`, `3 h`, `2 d`. */
export function age(iso: string | undefined, now: number): string {
  const then = Date.parse(iso ?? "");
  if (Number.isNaN(then)) return "";
  const seconds = Math.max(0, Math.round((now - then) / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}

/**
 * `iso` as a date and time in `timeZone` (the host's, else the browser's), e.g. `Wed 25 Nov, 09:00`
 * (`short`: the time alone); the text itself when it is no date. An unknown time zone falls back to
 * the browser's.
 */
export function when(iso: string, timeZone: string | undefined, locale?: string, short = false): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const day: Intl.DateTimeFormatOptions = short ? {} : { weekday: "short", day: "numeric", month: "short" };
  const options: Intl.DateTimeFormatOptions = { ...day, hour: "2-digit", minute: "2-digit", timeZone };
  try {
    return new Intl.DateTimeFormat(locale, options).format(date);
  } catch {
    return new Intl.DateTimeFormat(locale, { ...options, timeZone: undefined }).format(date);
  }
}
