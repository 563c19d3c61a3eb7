import type { CalStore } from '@cal/store'
import { describe, expect, it } from 'vitest'
import { CAL_EXPOSED_HEADERS, createHandler } from '../src/index.js'
import { emptyProvider } from './kcore-helpers.js'

// Discovery and the preflight read no data: no database needed.
const cal = { store: {} as CalStore, tokens: [] }
const origin = 'https://app.example.org'
const exposed = (response: Response) =>
  (response.headers.get('access-control-expose-headers') ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean)

describe('CORS', () => {
  it('exposes the headers each mounted API declares on the actual response (not only the preflight), to allowed origins only', async () => {
    const both = createHandler({ cal, corsOrigins: [origin], explorer: false })
    const answer = await both(new Request('https://x.test/cal/events/v1', { headers: { origin } }))
    expect(answer.headers.get('access-control-allow-origin')).toBe(origin)
    expect(exposed(answer).sort()).toEqual([...CAL_EXPOSED_HEADERS].sort())
    expect(exposed(answer)).toContain('X-TEC-Total')
    const stranger = await both(
      new Request('https://x.test/cal/events/v1', { headers: { origin: 'https://evil.test' } }),
    )
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull()
    expect(stranger.headers.get('access-control-expose-headers')).toBeNull()

    const kcoreOnly = createHandler({
      kcore: {
        store: {} as never,
        provider: emptyProvider,
        version: 't',
      },
      corsOrigins: [origin],
      explorer: false,
    })
    const other = await kcoreOnly(
      new Request('https://x.test/api/openapi.json', { headers: { origin } }),
    )
    expect(other.status).toBe(200)
    expect(exposed(other).filter((h) => /^X-(CAL|TEC)-/i.test(h))).toEqual([])
    await Promise.all([both.close(), kcoreOnly.close()])
  })
})
