import { describe, expect, it } from 'vitest'
import { hashPassword, verifyPassword } from './password.js'

describe('password hashing', () => {
  it('hashes with a random salt and verifies only the right password', async () => {
    const a = await hashPassword('s3cret')
    const b = await hashPassword('s3cret')
    expect(a).not.toBe(b)
    expect(a).not.toContain('s3cret')
    expect(a.startsWith('scrypt$16384$8$1$')).toBe(true)
    expect(await verifyPassword('s3cret', a)).toBe(true)
    expect(await verifyPassword('s3cret', b)).toBe(true)
    expect(await verifyPassword('S3cret', a)).toBe(false)
    expect(await verifyPassword('', a)).toBe(false)
  })
  it('rejects malformed stored hashes', async () => {
    expect(await verifyPassword('x', 'plain')).toBe(false)
    expect(await verifyPassword('x', 'scrypt$1$2')).toBe(false)
  })
})
