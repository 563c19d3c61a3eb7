import { describe, expect, it } from 'vitest'
import { HttpError } from '../http-error.js'
import { createAdminAuth } from './admin-auth.js'

const req = (authorization?: string) =>
  new Request('http://x/', authorization ? { headers: { authorization } } : {})

describe('createAdminAuth', () => {
  it('lets everybody through without a token', () => {
    const auth = createAdminAuth(undefined)
    expect(auth.required).toBe(false)
    expect(() => auth.assert(req())).not.toThrow()
  })

  it('accepts only the exact bearer token', () => {
    const auth = createAdminAuth('tok')
    expect(auth.required).toBe(true)
    expect(() => auth.assert(req('Bearer tok'))).not.toThrow()
    expect(() => auth.assert(req('bearer   tok'))).not.toThrow()
    for (const bad of [undefined, 'Bearer', 'Bearer tok2', 'Bearer to', 'Token tok', 'tok']) {
      let error: unknown
      try {
        auth.assert(req(bad))
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(HttpError)
      expect(error).toMatchObject({ status: 401, code: 'unauthorized' })
    }
  })
})
