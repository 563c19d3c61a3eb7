import { stringList } from './request-schemas.js'

/** `_fields` (WordPress): the fields each record keeps, for lists and reads. */
export const fieldsQuery = {
  _fields: stringList
    .optional()
    .describe(
      'Only these fields of each record (comma-separated or repeated; dots reach into objects, e.g. venue.venue); unknown names are ignored',
    ),
}

/**
 * `record` cut down to `fields`, as WordPress's `_fields` does: top-level names, and
 * `a.b` for a field inside an object (or inside each object of an array). Unknown names are
 * skipped; no fields (absent or empty) keeps the record whole. Order follows the record.
 */
export function pickFields<T>(record: T, fields: readonly string[] | undefined): T | Partial<T> {
  if (!fields?.length || record === null || typeof record !== 'object') return record
  return pick(
    record as Record<string, unknown>,
    fields.map((f) => f.split('.')),
  ) as Partial<T>
}

function pick(value: unknown, paths: string[][]): unknown {
  if (Array.isArray(value)) return value.map((v) => pick(v, paths))
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [key, child] of Object.entries(value)) {
    const wanted = paths.filter((p) => p[0] === key)
    if (wanted.length === 0) continue
    // `a` wins over `a.b`: the whole field was asked for.
    const whole = wanted.some((p) => p.length === 1)
    out[key] = whole
      ? child
      : pick(
          child,
          wanted.map((p) => p.slice(1)),
        )
  }
  return out
}
