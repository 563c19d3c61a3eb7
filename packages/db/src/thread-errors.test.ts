import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'
import {
  DatabaseUnavailableError,
  errorText,
  isDatabaseUnavailable,
  isOutOfSpace,
  StorageFullError,
} from './database-errors.js'
import { EngineError, fromThreadError, toThreadError } from './thread-errors.js'

/** Through a real port, as the worker posts it. */
function across(error: unknown): unknown {
  const { port1, port2 } = new MessageChannel()
  port1.postMessage(toThreadError(error))
  const received = receiveMessageOnPort(port2)!.message
  port1.close()
  return fromThreadError(received)
}

describe('errors across a thread', () => {
  it('keep what callers decide by: fields, name, message, cause', () => {
    // PGlite's DatabaseError: an Error named 'error' with PostgreSQL's fields.
    const pg = Object.assign(new Error('duplicate key value violates unique constraint "k"'), {
      name: 'error',
      code: '23505',
      severity: 'ERROR',
      constraint: 'k',
      length: 120n,
      detail: undefined,
    })
    const wrapped = new Error('storing failed', { cause: pg })
    const back = across(wrapped) as EngineError
    expect(back).toBeInstanceOf(Error)
    expect(back.message).toBe('storing failed')
    const cause = back.cause as EngineError
    expect(cause).toBeInstanceOf(EngineError)
    expect(cause).toMatchObject({
      name: 'error',
      code: '23505',
      severity: 'ERROR',
      constraint: 'k',
    })
    expect(cause.length).toBe(120n)
    expect(cause.message).toBe(pg.message)
    expect(cause.stack).toBe(pg.stack)
  })

  it('keep an Emscripten object a plain object the full-disk rules still recognise', () => {
    class ErrnoError {
      errno = 51
      get name() {
        return 'ErrnoError'
      }
    }
    const back = across(new ErrnoError())
    expect(back).not.toBeInstanceOf(Error)
    expect(back).toEqual({ name: 'ErrnoError', errno: 51 })
    expect(isOutOfSpace(back)).toBe(true)
    expect(isDatabaseUnavailable(back)).toBe(true)
    expect(isDatabaseUnavailable(across({ code: '57P01', message: 'terminating' }))).toBe(true)
    expect(isOutOfSpace(across({ name: 'ErrnoError', errno: 44 }))).toBe(false)
  })

  it('carry any thrown value, and end a cycle of causes', () => {
    expect(across('boom')).toBe('boom')
    expect(across(7n)).toBe(7n)
    expect(across(undefined)).toBeUndefined()
    expect(errorText(across(Symbol('s')))).toBe('Symbol(s)')
    const a = new Error('a')
    const b = new Error('b', { cause: a })
    ;(a as { cause?: unknown }).cause = b
    let depth = 0
    for (let e: unknown = across(a); e instanceof Error; e = e.cause) depth++
    expect(depth).toBe(9)
  })

  it('the serving thread makes its own classes: they stay what they are', () => {
    // StorageFullError and DatabaseUnavailableError never cross: the supervisor makes them here
    // around the engine's error; their rule still sees a crossed cause.
    const full = new StorageFullError({ cause: across({ name: 'ErrnoError', errno: 51 }) })
    expect(isDatabaseUnavailable(new Error('x', { cause: full }))).toBe(true)
    expect(new DatabaseUnavailableError()).toBeInstanceOf(DatabaseUnavailableError)
  })
})
