import { resolve } from 'node:path'

/**
 * Thrown by a query when the database's disk is full: the change was not stored, and what was
 * stored before is intact and still readable. Answer it as 503 Service Unavailable. The
 * message says only that; the engine's text (file paths, SQL) is the `cause`, and is logged.
 */
export class StorageFullError extends Error {
  override readonly name = 'StorageFullError'
  constructor(options?: ErrorOptions) {
    super('no space left on the database disk: the change was not stored', options)
  }
}

/**
 * Thrown by a query when the database cannot answer for now: the embedded database is
 * restarting after a failure of its engine, or cannot start again yet. Answer it as 503
 * Service Unavailable. The engine's text is the `cause`, and is logged.
 */
export class DatabaseUnavailableError extends Error {
  override readonly name = 'DatabaseUnavailableError'
  constructor(options?: ErrorOptions) {
    super('the database is unavailable for now; try again shortly', options)
  }
}

/**
 * Thrown by `openDatabase({ dataDir })` when the embedded database cannot be opened: one line
 * naming the directory and the reason ("no space left on device" for a full disk).
 */
export class DatabaseOpenError extends Error {
  override readonly name = 'DatabaseOpenError'
  constructor(
    readonly dataDir: string | undefined,
    cause: unknown,
  ) {
    const reason = isOutOfSpace(cause) ? 'no space left on device' : errorText(cause)
    super(
      `cannot open the database ${dataDir ? `in ${resolve(dataDir)}` : 'in memory'}: ${reason}`,
      { cause },
    )
  }
}

/** PostgreSQL's SQLSTATE `disk_full`. */
const DISK_FULL = '53100'
/**
 * ENOSPC as PGlite's Emscripten file system reports it: WASI numbering (`__WASI_ERRNO_NOSPC`),
 * not the host's.
 */
const WASI_ENOSPC = 51

/**
 * True for every shape "no space left on device" takes on its way up: PostgreSQL's `disk_full`
 * (PGlite, postgres.js), Node's `ENOSPC`, an Emscripten `ErrnoError` (which is no `Error`).
 */
export function isOutOfSpace(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const { code, errno, name } = error as { code?: unknown; errno?: unknown; name?: unknown }
  return (
    code === DISK_FULL ||
    code === 'ENOSPC' ||
    (name === 'ErrnoError' && errno === WASI_ENOSPC) ||
    /no space left on device/i.test(errorText(error))
  )
}

/**
 * One line for whatever was thrown: an `Error`'s message, an object's `message` or JSON, a
 * value as a string. Emscripten throws plain objects, which `String()` prints as
 * `[object Object]`.
 */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message
  if (typeof error === 'object' && error !== null) {
    const { message } = error as { message?: unknown }
    if (typeof message === 'string') return message
    try {
      return JSON.stringify(error)
    } catch {
      return Object.prototype.toString.call(error)
    }
  }
  return String(error)
}

/**
 * SQLSTATE classes and system error codes that say the database cannot serve now, whoever
 * raised them: class 53 (insufficient resources: disk full, out of memory, too many
 * connections), class 08 (connection exception), 57P01-57P03 (shutting down, cannot connect
 * now), and the same seen by the driver or PGlite as a system error.
 */
const UNAVAILABLE_SQLSTATE = /^(53|08)[0-9A-Z]{3}$|^57P0[1-3]$/
const UNAVAILABLE_SYSTEM = new Set([
  'ENOSPC',
  'EDQUOT',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
])

/**
 * Whether `error` (or an error it wraps, through `cause`) says the database cannot serve now:
 * {@link StorageFullError}, {@link DatabaseUnavailableError}, a full disk however the engine
 * said it ({@link isOutOfSpace}), or one of the codes above. The one rule hosts answer 503 by.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e !== null && typeof e === 'object' && depth < 8; depth++) {
    if (e instanceof StorageFullError || e instanceof DatabaseUnavailableError) return true
    const code = (e as { code?: unknown }).code
    if (
      (typeof code === 'string' &&
        (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_SYSTEM.has(code))) ||
      isOutOfSpace(e)
    )
      return true
    e = (e as { cause?: unknown }).cause
  }
  return false
}
