/** `YYYY-MM-DD HH:MM:SS` in UTC: how both APIs write their `*_utc` fields. */
export function utcText(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ')
}
