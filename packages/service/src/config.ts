import { isValidTimeZone } from '@cal/store'
import { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_PREPARED_STATEMENTS } from '@kcore/db'
import { DEFAULT_PROVIDER_URL } from '@kcore/engine'
import { parsePublicUrl } from '@kcore/http-adapter'
import { DEFAULT_REFRESH_DEADLINE_MS, DEFAULT_SCHEDULER, parseCronSchedule } from '@kcore/store'
import { z } from 'zod'

const BOOL_WORDS = ['true', 'false', '1', '0', 'yes', 'no'] as const
const bool = z
  .union([z.boolean(), z.enum(BOOL_WORDS)], {
    error: `must be one of ${BOOL_WORDS.join(', ')}`,
  })
  .transform((v) => v === true || v === 'true' || v === '1' || v === 'yes')
const list = z
  .union([z.array(z.string()), z.string()])
  .transform((v) => (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter(Boolean))

/** Milliseconds, at most what a timer can wait (2^31 - 1). */
const millis = (fallback: number) =>
  z.coerce.number().int().min(1).max(2_147_483_647).default(fallback)

const PORT_RULE = 'must be a whole number from 0 to 65535'

/**
 * Every setting and its default. The defaults of the library packages are theirs (imported, never
 * restated); the ones below without an import belong to the service alone.
 */
const schema = z.object({
  port: z
    .union([z.number(), z.string().regex(/^\d{1,5}$/, PORT_RULE)], { error: PORT_RULE })
    .transform(Number)
    .pipe(z.number().int().min(0, PORT_RULE).max(65535, PORT_RULE))
    .default(8080),
  host: z.string().min(1).default('0.0.0.0'),
  databaseUrl: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  dataDir: z.string().min(1).default('./.kcore-data'),
  providerUrl: z
    .string()
    .refine(
      (v) => /^(https?|file):\/\//.test(v) && URL.canParse(v),
      'must be an http(s):// or file:// URL',
    )
    .default(DEFAULT_PROVIDER_URL),
  // The scheduler's own parser, so a bad cron stops the command before the database opens.
  schedule: z
    .string()
    .transform((value, ctx) => {
      try {
        return parseCronSchedule(value)
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message })
        return z.NEVER
      }
    })
    .default(DEFAULT_SCHEDULER.schedule),
  schedulerEnabled: bool.default(DEFAULT_SCHEDULER.enabled),
  seed: bool.default(true),
  // The AS-name slice (`data/as-names/`) on a first start whose registry is empty.
  seedNames: bool.default(true),
  seedDir: z.string().min(1).optional(),
  adminToken: z.string().min(1).optional(),
  calTokens: list.default([]),
  // The calendar store's own rule (IANA names and `UTC±H[:MM]`), so config and store agree.
  calTimezone: z
    .string()
    .refine(isValidTimeZone, 'must be an IANA time zone or UTC±H[:MM]')
    .default('UTC'),
  // Days the calendar's changes feed keeps (the store's default: 30); an older token is 410.
  calChangesRetentionDays: z.coerce
    .number()
    .int('must be a whole number of days')
    .min(1, 'must be at least 1 day')
    .max(36_500, 'must be at most 36500 days')
    .optional(),
  corsOrigins: list.default([]),
  // Receivers on loopback or private addresses (tests, an operator's own network): off by
  // default, since a subscriber could otherwise make the service call into its network.
  webhooksAllowPrivate: bool.default(false),
  publicUrl: z
    .string()
    .transform((value, ctx) => {
      try {
        return parsePublicUrl(value)
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message })
        return z.NEVER
      }
    })
    .optional(),
  logLevel: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  dbConnectTimeoutMs: millis(DEFAULT_CONNECT_TIMEOUT_MS),
  // Query texts PostgreSQL keeps prepared per connection; 0 behind a transaction-mode pooler.
  dbPreparedStatements: z.coerce
    .number()
    .int('must be a whole number')
    .min(0, 'must be at least 0')
    .max(100_000, 'must be at most 100000')
    .default(DEFAULT_PREPARED_STATEMENTS),
  refreshDeadlineMs: millis(DEFAULT_REFRESH_DEADLINE_MS),
})

/** Validated configuration of the `kcore` command and of {@link createApp}. */
export type Config = z.output<typeof schema>
/** Settings as given on the command line (flag values win over the environment). */
export type ConfigFlags = Partial<Record<keyof Config, unknown>>

/** Environment variable of each setting. */
export const ENV_NAMES: Record<keyof Config, string> = {
  port: 'PORT',
  host: 'HOST',
  databaseUrl: 'DATABASE_URL',
  dataDir: 'KCORE_DATA_DIR',
  providerUrl: 'KCORE_PROVIDER_URL',
  schedule: 'KCORE_SCHEDULE',
  schedulerEnabled: 'KCORE_SCHEDULER_ENABLED',
  seed: 'KCORE_SEED',
  seedNames: 'KCORE_SEED_NAMES',
  seedDir: 'KCORE_SEED_DIR',
  adminToken: 'KCORE_ADMIN_TOKEN',
  calTokens: 'CAL_API_TOKENS',
  calTimezone: 'CAL_TIMEZONE',
  calChangesRetentionDays: 'CAL_CHANGES_RETENTION_DAYS',
  corsOrigins: 'KCORE_CORS_ORIGINS',
  webhooksAllowPrivate: 'KCORE_WEBHOOKS_ALLOW_PRIVATE',
  publicUrl: 'KCORE_PUBLIC_URL',
  logLevel: 'KCORE_LOG_LEVEL',
  dbConnectTimeoutMs: 'KCORE_DB_CONNECT_TIMEOUT_MS',
  dbPreparedStatements: 'KCORE_DB_PREPARED_STATEMENTS',
  refreshDeadlineMs: 'KCORE_REFRESH_DEADLINE_MS',
}

/** A setting that does not validate; its message is one line naming the setting. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError'
}

const flagName = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`

/**
 * Reads the configuration: flags over environment over defaults. Empty environment values
 * count as unset. Throws {@link ConfigError} naming the first invalid setting.
 */
export function loadConfig(
  env: Record<string, string | undefined>,
  flags: ConfigFlags = {},
): Config {
  const raw: Record<string, unknown> = {}
  const origin: Record<string, string> = {}
  for (const [key, envName] of Object.entries(ENV_NAMES)) {
    const flag = flags[key as keyof Config]
    const fromEnv = env[envName]
    if (flag !== undefined) {
      raw[key] = flag
      origin[key] = flagName(key)
    } else if (fromEnv !== undefined && fromEnv !== '') {
      raw[key] = fromEnv
      origin[key] = envName
    }
  }
  const result = schema.safeParse(raw)
  if (result.success) return result.data
  const issue = result.error.issues[0]
  const key = String(issue?.path[0] ?? '')
  const name = origin[key] ?? ENV_NAMES[key as keyof Config] ?? key
  const shown = raw[key] === undefined ? '' : ` (got ${JSON.stringify(raw[key])})`
  throw new ConfigError(`Invalid configuration: ${name} ${issue?.message ?? 'is invalid'}${shown}`)
}
