/**
 * The records of an `@ip-location-db/asn`-shaped CSV file (`ip_range_start,ip_range_end,asn,
 * organisation`, RFC 4180: fields in double quotes may hold commas, doubled quotes and line
 * breaks; CRLF or LF line ends; a header row, when there is one, is skipped by the caller). A
 * record whose field count is not four, or a quoted field that never ends (a truncated file),
 * throws {@link RegistryFileError} naming the line, so a broken file changes nothing.
 */

/** A file of the registry import that cannot be read as one (its name and line, when known). */
export class RegistryFileError extends Error {
  readonly file: string
  readonly line: number | undefined
  constructor(file: string, line: number | undefined, message: string) {
    super(line === undefined ? `${file}: ${message}` : `${file}, line ${line}: ${message}`)
    this.name = 'RegistryFileError'
    this.file = file
    this.line = line
  }
}

/** One record of the file: its four fields as written, and the line it starts on. */
export interface RegistryRecord {
  line: number
  fields: string[]
}

/** The records of `text` (the whole file, decoded), in order; blank lines are skipped. */
export function* registryRecords(text: string, file: string): Generator<RegistryRecord> {
  let at = 0
  let line = 1
  const n = text.length
  while (at < n) {
    const start = line
    const fields: string[] = []
    let field = ''
    let quoted = false
    let inQuotes = false
    for (;;) {
      if (at >= n) {
        if (inQuotes)
          throw new RegistryFileError(file, start, 'a quoted field never ends (truncated?)')
        fields.push(field)
        break
      }
      const c = text[at]!
      if (inQuotes) {
        if (c === '"') {
          if (text[at + 1] === '"') {
            field += '"'
            at += 2
          } else {
            inQuotes = false
            at++
          }
        } else {
          if (c === '\n') line++
          field += c
          at++
        }
        continue
      }
      if (c === '"' && field.length === 0 && !quoted) {
        quoted = true
        inQuotes = true
        at++
      } else if (c === ',') {
        fields.push(field)
        field = ''
        quoted = false
        at++
      } else if (c === '\n' || (c === '\r' && text[at + 1] === '\n')) {
        at += c === '\r' ? 2 : 1
        line++
        fields.push(field)
        break
      } else {
        field += c
        at++
      }
    }
    if (fields.length === 1 && fields[0] === '') continue
    if (fields.length !== 4)
      throw new RegistryFileError(file, start, `${fields.length} fields where 4 were expected`)
    yield { line: start, fields }
  }
}
