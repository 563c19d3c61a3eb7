/**
 * A snapshot that cannot be read: a malformed data line, or corrupt or truncated compressed
 * data. `line` is the 1-based line number of the offending line (for broken compression: the
 * line being read when the data broke).
 */
export class AsRelParseError extends Error {
  override readonly name = 'AsRelParseError'
  readonly line: number

  constructor(message: string, line: number, options?: { cause?: unknown }) {
    super(message, options)
    this.line = line
  }
}
