import { describe, expect, it } from 'vitest'
import { createTokenAuth } from './token-auth.js'

const req = (authorization?: string) =>
  new Request('http://x/', { headers: authorization ? { authorization } : {} })

describe('createTokenAuth', () => {
  const auth = createTokenAuth(['secret-one', 'secret-two', ''])

  it('accepts any configured token', () => {
    expect(auth.identify(req('Bearer secret-one'))).toEqual({ authenticated: true })
    expect(auth.identify(req('bearer secret-two'))).toEqual({ authenticated: true })
  })

  it('tells a missing token from a wrong one', () => {
    expect(auth.identify(req())).toEqual({ authenticated: false, reason: 'missing' })
    expect(auth.identify(req('Bearer '))).toEqual({ authenticated: false, reason: 'missing' })
    expect(auth.identify(req('Basic abc'))).toEqual({ authenticated: false, reason: 'missing' })
    expect(auth.identify(req('Bearer secret'))).toEqual({ authenticated: false, reason: 'invalid' })
  })

  it('lets nobody in without configured tokens', () => {
    expect(createTokenAuth([]).identify(req('Bearer '))).toMatchObject({ authenticated: false })
    expect(createTokenAuth([]).identify(req('Bearer x'))).toEqual({
      authenticated: false,
      reason: 'invalid',
    })
  })
})
