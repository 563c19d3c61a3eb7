import type { Config } from './config.js'

const LEVELS = ['debug', 'info', 'warn', 'error'] as const
type Level = (typeof LEVELS)[number]

/** Structured JSON logs, one line per event, on stderr. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void
  info(msg: string, fields?: Record<string, unknown>): void
  warn(msg: string, fields?: Record<string, unknown>): void
  error(msg: string, fields?: Record<string, unknown>): void
}

/** A logger that drops everything below `level`. */
export function createLogger(
  level: Config['logLevel'],
  write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Logger {
  const min = level === 'silent' ? LEVELS.length : LEVELS.indexOf(level)
  const at =
    (lvl: Level) =>
    (msg: string, fields: Record<string, unknown> = {}) => {
      if (LEVELS.indexOf(lvl) >= min) {
        write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields }))
      }
    }
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }
}
