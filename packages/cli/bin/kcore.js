#!/usr/bin/env node
// The `kcore` bin. It is committed (not built) so pnpm can link it at install time, before any
// build has run. It runs the build when there is one, otherwise the TypeScript sources through
// tsx, resolving workspace packages to their sources too (the "source" export condition).
// KCORE_RUN_SOURCE=1 runs the sources even when a build exists (a stale build, or tests).
import { existsSync } from 'node:fs'
import { register } from 'node:module'

const built = new URL('../dist/bin.js', import.meta.url)
if (existsSync(built) && process.env.KCORE_RUN_SOURCE !== '1') {
  await import(built.href)
} else {
  const { register: registerTsx } = await import('tsx/esm/api')
  registerTsx()
  // Registered last, so it runs first and tsx resolves with the "source" condition added.
  register('./source-condition.js', import.meta.url)
  await import('../src/bin.ts')
}
