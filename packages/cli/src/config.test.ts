import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from './config.js'

describe('loadConfig', () => {
  it('has defaults for everything', () => {
    const config = loadConfig({})
    expect(config).toMatchObject({
      port: 8080,
      dataDir: './.kcore-data',
      providerUrl: 'https://publicdata.caida.org/datasets/as-relationships/',
      schedule: '0 6 * * *',
      schedulerEnabled: true,
      seed: true,
      calTokens: [],
      calTimezone: 'UTC',
    })
    expect(config.databaseUrl).toBeUndefined()
  })

  it('takes flags over environment over defaults', () => {
    const env = {
      PORT: '9000',
      KCORE_SEED: 'false',
      CAL_API_TOKENS: 'a, b,,c',
      KCORE_SCHEDULER_ENABLED: '0',
    }
    expect(loadConfig(env)).toMatchObject({
      port: 9000,
      seed: false,
      calTokens: ['a', 'b', 'c'],
      schedulerEnabled: false,
    })
    expect(loadConfig(env, { port: '9100', seed: true }).port).toBe(9100)
    expect(loadConfig(env, { seed: true }).seed).toBe(true)
  })

  it('times out database connects after 10 s and refreshes after 600 s unless configured', () => {
    expect(loadConfig({})).toMatchObject({ dbConnectTimeoutMs: 10_000, refreshDeadlineMs: 600_000 })
    const env = { KCORE_DB_CONNECT_TIMEOUT_MS: '1', KCORE_REFRESH_DEADLINE_MS: '2147483647' }
    expect(loadConfig(env)).toMatchObject({
      dbConnectTimeoutMs: 1,
      refreshDeadlineMs: 2_147_483_647,
    })
  })

  it.each(['0', '-1', '1.5', 'ten', '2147483648', '1e400'])(
    'refuses timeout %j of KCORE_DB_CONNECT_TIMEOUT_MS and KCORE_REFRESH_DEADLINE_MS',
    (value) => {
      for (const name of ['KCORE_DB_CONNECT_TIMEOUT_MS', 'KCORE_REFRESH_DEADLINE_MS']) {
        expect(() => loadConfig({ [name]: value })).toThrow(ConfigError)
        expect(() => loadConfig({ [name]: value })).toThrow(`Invalid configuration: ${name} `)
      }
    },
  )

  it('treats empty environment values as unset', () => {
    const config = loadConfig({ PORT: '', DATABASE_URL: '' })
    expect(config.port).toBe(8080)
    expect(config.databaseUrl).toBeUndefined()
  })

  it.each([
    [{ PORT: 'abc' }, {}, /^Invalid configuration: PORT .*"abc"/],
    [{ PORT: '70000' }, {}, /PORT/],
    [{}, { port: '-1' }, /--port/],
    [{ DATABASE_URL: 'mysql://x' }, {}, /DATABASE_URL must be a postgres/],
    [{ KCORE_SEED: 'maybe' }, {}, /KCORE_SEED/],
    [{ CAL_TIMEZONE: 'Mars/Base' }, {}, /CAL_TIMEZONE must be an IANA time zone/],
    [{ KCORE_PROVIDER_URL: 'ftp://x' }, {}, /KCORE_PROVIDER_URL/],
    [{ KCORE_LOG_LEVEL: 'loud' }, {}, /KCORE_LOG_LEVEL/],
  ])('refuses %j %j with one line naming the setting', (env, flags, message) => {
    let error: unknown
    try {
      loadConfig(env, flags)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as Error).message).toMatch(message)
    expect((error as Error).message).not.toContain('\n')
  })
})
