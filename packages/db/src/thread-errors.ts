/**
 * Errors across a thread boundary. Structured clone keeps an `Error`'s message but drops what
 * callers of a database decide by: its class, PostgreSQL's fields (`code`, `severity`,
 * `constraint`, `detail`, ...) and its `cause`. Emscripten throws plain objects (`ErrnoError`,
 * `ExitStatus`) told apart by `name` and `errno` only. So an error crosses as this record, and
 * comes back as an {@link EngineError} with the same name, message, fields and cause, or as the
 * same plain object.
 */
export type ThreadError =
  | {
      kind: 'error'
      name: string
      message: string
      stack?: string | undefined
      fields: Fields
      cause?: ThreadError
    }
  | { kind: 'object'; fields: Fields }
  | { kind: 'value'; value: string | number | boolean | bigint | null | undefined }

type Fields = Record<string, string | number | boolean | bigint | null>

/** An error raised by the embedded engine in its thread, rebuilt in this one. */
export class EngineError extends Error {
  /** Every primitive field the original carried (`code`, `severity`, `constraint`, ...). */
  [field: string]: unknown
  constructor(message: string, name: string, options?: ErrorOptions) {
    super(message, options)
    // The original's name (PGlite's `DatabaseError` says `error`, Emscripten `ExitStatus`).
    Object.defineProperty(this, 'name', { value: name, writable: true, configurable: true })
  }
}

/** Nested causes kept at most (a cycle of causes ends here). */
const MAX_DEPTH = 8

/** `error` as a record structured clone carries whole (see {@link ThreadError}). */
export function toThreadError(error: unknown, depth = 0): ThreadError {
  if (typeof error !== 'object' || error === null)
    return typeof error === 'symbol' || typeof error === 'function'
      ? { kind: 'value', value: String(error) }
      : { kind: 'value', value: error as string | number | boolean | bigint | null | undefined }
  const fields = primitiveFields(error)
  if (!(error instanceof Error)) {
    // `name` of an Emscripten object sits on its prototype.
    const { name } = error as { name?: unknown }
    if (typeof name === 'string' && !('name' in fields)) fields.name = name
    return { kind: 'object', fields }
  }
  const { cause } = error as { cause?: unknown }
  return {
    kind: 'error',
    name: error.name,
    message: error.message,
    stack: error.stack,
    fields,
    ...(cause !== undefined && depth < MAX_DEPTH ? { cause: toThreadError(cause, depth + 1) } : {}),
  }
}

/** The error {@link toThreadError} recorded, rebuilt. */
export function fromThreadError(record: ThreadError): unknown {
  if (record.kind === 'value') return record.value
  if (record.kind === 'object') return { ...record.fields }
  const error = new EngineError(
    record.message,
    record.name,
    record.cause ? { cause: fromThreadError(record.cause) } : undefined,
  )
  Object.assign(error, record.fields)
  if (record.stack) error.stack = record.stack
  return error
}

function primitiveFields(error: object): Fields {
  const fields: Fields = {}
  for (const [key, value] of Object.entries(error)) {
    if (key === 'cause' || key === 'message' || key === 'stack') continue
    if (value === null || ['string', 'number', 'boolean', 'bigint'].includes(typeof value))
      fields[key] = value as Fields[string]
  }
  return fields
}
