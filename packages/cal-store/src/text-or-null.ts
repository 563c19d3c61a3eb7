/** `''` and `undefined` become `null`; other strings stay. */
export function textOrNull(value: string | null | undefined): string | null {
  return value === undefined || value === null || value === '' ? null : value
}
