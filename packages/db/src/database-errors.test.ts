import { describe, expect, it } from 'vitest'
import {
  DatabaseOpenError,
  DatabaseUnavailableError,
  errorText,
  isDatabaseUnavailable,
  isOutOfSpace,
  StorageFullError,
} from './database-errors.js'

// What PGlite's Emscripten file system throws: a plain object, no Error.
const emscriptenEnospc = { name: 'ErrnoError', errno: 51 }

describe('database errors', () => {
  it('recognises every shape of "no space left on device"', () => {
    expect(isOutOfSpace(emscriptenEnospc)).toBe(true)
    expect(
      isOutOfSpace(
        Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }),
      ),
    ).toBe(true)
    expect(
      isOutOfSpace({
        code: '53100',
        message: 'could not extend file "base/5/1": No space left on device',
      }),
    ).toBe(true)
    expect(isOutOfSpace({ name: 'ErrnoError', errno: 44 })).toBe(false)
    expect(isOutOfSpace(new Error('relation "x" does not exist'))).toBe(false)
    expect(isOutOfSpace(undefined)).toBe(false)
  })

  it('describes anything thrown in one readable line, never [object Object]', () => {
    expect(errorText(new Error('boom'))).toBe('boom')
    expect(errorText({ message: 'plain' })).toBe('plain')
    expect(errorText(emscriptenEnospc)).toBe('{"name":"ErrnoError","errno":51}')
    expect(errorText(42)).toBe('42')
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(errorText(cyclic)).toBe('[object Object]')
  })

  it('names the data directory and the reason when opening fails', () => {
    const error = new DatabaseOpenError('/srv/kcore', emscriptenEnospc)
    expect(error.message).toBe('cannot open the database in /srv/kcore: no space left on device')
    expect(error.cause).toBe(emscriptenEnospc)
  })

  it('keeps engine text out of the refusal message, in its cause', () => {
    const cause = new Error('could not extend file "base/5/16437": No space left on device')
    const error = new StorageFullError({ cause })
    expect(error.message).not.toContain('base/5')
    expect(error.cause).toBe(cause)
  })

  it('tells a database that cannot serve now from any other failure, through causes', () => {
    const wrapped = (cause: unknown) => new Error('storing the snapshot failed', { cause })
    for (const unavailable of [
      new StorageFullError({ cause: emscriptenEnospc }),
      new DatabaseUnavailableError(),
      emscriptenEnospc,
      { code: '53100', message: 'could not extend file' },
      { code: '08006' },
      { code: '57P01' },
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    ]) {
      expect(isDatabaseUnavailable(unavailable), errorText(unavailable)).toBe(true)
      expect(isDatabaseUnavailable(wrapped(wrapped(unavailable)))).toBe(true)
    }
    for (const other of [
      new Error('boom'),
      { code: '23505' },
      { code: '42P01' },
      'ENOSPC',
      null,
      wrapped(new RangeError('bad date')),
    ]) {
      expect(isDatabaseUnavailable(other), String(other)).toBe(false)
    }
  })
})
