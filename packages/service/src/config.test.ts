import { isValidTimeZone } from '@cal/store'
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
      webhooksAllowPrivate: false,
    })
    expect(config.databaseUrl).toBeUndefined()
  })

  it('allows private webhook targets only when KCORE_WEBHOOKS_ALLOW_PRIVATE says so', () => {
    for (const [value, allowed] of [
      ['true', true],
      ['1', true],
      ['no', false],
      ['', false],
    ] as const)
      expect(loadConfig({ KCORE_WEBHOOKS_ALLOW_PRIVATE: value }).webhooksAllowPrivate).toBe(allowed)
    expect(() => loadConfig({ KCORE_WEBHOOKS_ALLOW_PRIVATE: 'maybe' })).toThrow(
      'KCORE_WEBHOOKS_ALLOW_PRIVATE',
    )
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

  it('prepares 1,000 query texts unless configured, 0 for none', () => {
    expect(loadConfig({}).dbPreparedStatements).toBe(1000)
    expect(loadConfig({ KCORE_DB_PREPARED_STATEMENTS: '0' }).dbPreparedStatements).toBe(0)
    expect(loadConfig({ KCORE_DB_PREPARED_STATEMENTS: '100000' }).dbPreparedStatements).toBe(
      100_000,
    )
  })

  it.each(['-1', '1.5', 'many', '100001', '1e400'])(
    'refuses %j of KCORE_DB_PREPARED_STATEMENTS',
    (value) => {
      const name = 'KCORE_DB_PREPARED_STATEMENTS'
      expect(() => loadConfig({ [name]: value })).toThrow(`Invalid configuration: ${name} `)
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
    [{ CAL_TIMEZONE: 'Mars/Base' }, {}, /CAL_TIMEZONE must be an IANA time zone or UTC±H\[:MM\]/],
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

describe('loadConfig, checks that need no database', () => {
  it.each(['0', '1', '80', '65535'])('takes PORT=%s', (port) => {
    expect(loadConfig({ PORT: port }).port).toBe(Number(port))
  })

  it.each(['65536', '-1', '80.5', '0x50', '1e3', ' 80', '99999999', 'eighty'])(
    'refuses PORT=%j with the allowed range',
    (port) => {
      expect(() => loadConfig({ PORT: port })).toThrow(
        /^Invalid configuration: PORT must be a whole number from 0 to 65535/,
      )
    },
  )

  it.each(['maybe', 'TRUE ', '2', 'on'])('refuses KCORE_SEED=%j listing the allowed words', (v) => {
    expect(() => loadConfig({ KCORE_SEED: v })).toThrow(
      'KCORE_SEED must be one of true, false, 1, 0, yes, no',
    )
  })

  it.each(['61 * * * *', '* * * *', '0 0 6 * * *', '@daily', 'x y z w v'])(
    'refuses KCORE_SCHEDULE=%j through the scheduler parser',
    (cron) => {
      expect(() => loadConfig({ KCORE_SCHEDULE: cron })).toThrow(
        /^Invalid configuration: KCORE_SCHEDULE Invalid scheduler cron expression/,
      )
    },
  )

  it.each(['UTC+2', 'UTC-5:30', 'America/New_York', 'UTC'])(
    'takes CAL_TIMEZONE=%j, as the calendar store does',
    (zone) => {
      expect(isValidTimeZone(zone)).toBe(true)
      expect(loadConfig({ CAL_TIMEZONE: zone }).calTimezone).toBe(zone)
    },
  )

  it.each(['Mars/Base', 'UTC+15', 'EST5EDT,M3'])(
    'refuses CAL_TIMEZONE=%j, as the calendar store does',
    (zone) => {
      expect(isValidTimeZone(zone)).toBe(false)
      expect(() => loadConfig({ CAL_TIMEZONE: zone })).toThrow(/CAL_TIMEZONE must be/)
    },
  )

  it('takes CAL_CHANGES_RETENTION_DAYS as whole days, unset by default', () => {
    expect(loadConfig({}).calChangesRetentionDays).toBeUndefined()
    expect(loadConfig({ CAL_CHANGES_RETENTION_DAYS: '7' }).calChangesRetentionDays).toBe(7)
    for (const bad of ['0', '-3', '1.5', 'soon', '99999999'])
      expect(() => loadConfig({ CAL_CHANGES_RETENTION_DAYS: bad }), bad).toThrow(
        /CAL_CHANGES_RETENTION_DAYS/,
      )
  })

  it('takes a valid cron, trimmed, and names the flag when the flag is wrong', () => {
    expect(loadConfig({ KCORE_SCHEDULE: ' 5 4 * * 1 ' }).schedule).toBe('5 4 * * 1')
    expect(() => loadConfig({}, { schedule: '* *' })).toThrow(/--schedule .*five fields/)
  })
})
