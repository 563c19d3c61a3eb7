import pkg from '../package.json' with { type: 'json' }

/** The `@kcore/engine` version, stored with every snapshot it decomposed (provenance). */
export const ENGINE_VERSION: string = pkg.version
