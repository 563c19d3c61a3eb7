/**
 * `@kcore/service`: the whole service without a host. {@link loadConfig} validates the settings
 * (flags over environment over defaults), {@link createApp} opens the database, migrates and
 * seeds both stores and builds the handler; a Node, Bun or Deno host only serves `app.handler`.
 *
 * @packageDocumentation
 */

export { type App, createApp, openStores } from './app.js'
export { type Config, ConfigError, type ConfigFlags, ENV_NAMES, loadConfig } from './config.js'
export { createLogger, type Logger } from './logger.js'
export { SAMPLE_DATA_DIR, seedEmptyStores } from './seed.js'
export { warmUp } from './warm-up.js'
