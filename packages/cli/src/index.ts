export { type App, createApp, openStores } from './app.js'
export { type Config, ConfigError, type ConfigFlags, ENV_NAMES, loadConfig } from './config.js'
export { createLogger, type Logger } from './logger.js'
export { DEFAULT_SEED_DIR, seedEmptyStores } from './seed.js'
