import { describe, expect, it, vi } from 'vitest'
import { ApiError } from './api-client.js'
import type { AsnOverview } from './api-types.js'
import { createAsDirectory } from './as-directory.js'

const overview = (asn: number, name: string | null): AsnOverview => ({
  asn,
  ipv4: null,
  ipv6: null,
  name,
  address_space: null,
  registry: null,
})

describe('createAsDirectory', () => {
  it('fetches each AS once and labels it with its name, or the number alone', async () => {
    const load = vi.fn(async (asn: string) =>
      asn === '13335' ? overview(13335, 'Cloudflare, Inc.') : overview(Number(asn), null),
    )
    const directory = createAsDirectory(load)
    expect(directory.label('13335')).toBe('AS13335')
    await Promise.all([directory.overview('13335'), directory.overview('13335')])
    await directory.overview('64512')
    await directory.overview('13335')
    expect(load).toHaveBeenCalledTimes(2)
    expect(directory.label('13335')).toBe('AS13335 Cloudflare, Inc.')
    expect(directory.label('64512')).toBe('AS64512')
  })

  it('keeps an unknown AS as null but asks again after any other failure', async () => {
    let calls = 0
    const directory = createAsDirectory(async (asn) => {
      calls++
      if (asn === '1') throw new ApiError(404, 'asn_not_found', 'no')
      if (calls < 3) throw new ApiError(0, 'network_error', 'down')
      return overview(2, 'Back')
    })
    expect(await directory.overview('1')).toBeNull()
    expect(await directory.overview('1')).toBeNull()
    await expect(directory.overview('2')).rejects.toThrow('down')
    expect(await directory.overview('2')).toMatchObject({ name: 'Back' })
    expect(calls).toBe(3)
  })

  it('labels a picked suggestion at once, without a request', () => {
    const load = vi.fn()
    const directory = createAsDirectory(load)
    directory.remember('174', 'Cogent Communications')
    expect(directory.label('174')).toBe('AS174 Cogent Communications')
    expect(load).not.toHaveBeenCalled()
  })
})
