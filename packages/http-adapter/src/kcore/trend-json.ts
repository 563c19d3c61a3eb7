import type { TrendPoint } from '@kcore/store'

/**
 * JSON text of the read model's shared points (they are frozen, so their text never changes):
 * a trend answer joins ~460 memoized strings instead of formatting 460 floats each time.
 */
const pointText = new WeakMap<TrendPoint, string>()

/** `JSON.stringify(points)`, byte for byte, reusing the text of shared (frozen) points. */
export function trendPointsJson(points: readonly TrendPoint[]): string {
  let out = '['
  for (let i = 0; i < points.length; i++) {
    const point = points[i]!
    let text = pointText.get(point)
    if (text === undefined) {
      text = JSON.stringify(point)
      if (Object.isFrozen(point)) pointText.set(point, text)
    }
    out += i === 0 ? text : `,${text}`
  }
  return `${out}]`
}

/**
 * `JSON.stringify({ ...head, [key]: <raw JSON> })` with the raw JSON spliced in as the last
 * member: `head` must be a non-empty plain object without `key`.
 */
export function withRawMember(head: object, key: string, rawJson: string): string {
  return `${JSON.stringify(head).slice(0, -1)},${JSON.stringify(key)}:${rawJson}}`
}

/**
 * `JSON.stringify(record)` where each value is already JSON text: the members in the order
 * `JSON.stringify` uses (integer-like keys ascending, then insertion order).
 */
export function rawRecordJson(record: Record<string, string>): string {
  const members = Object.keys(record).map((key) => `${JSON.stringify(key)}:${record[key]}`)
  return `{${members.join(',')}}`
}
