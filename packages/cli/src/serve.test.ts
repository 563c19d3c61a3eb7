import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { emptyCluster } from '@kcore/db/testing'
import { ConfigError, loadConfig } from '@kcore/service'
import { afterEach, describe, expect, it } from 'vitest'
import { runServer } from './serve.js'

describe('runServer', () => {
  const cleanup: Array<() => Promise<void>> = []
  afterEach(async () => {
    for (const undo of cleanup.splice(0)) await undo()
  })

  it('fails with the one-line port error (not an unhandled error event) when the port was taken after the start-up check', async () => {
    const holder: Server = createServer()
    await new Promise<void>((resolve) => holder.listen({ port: 0, host: '127.0.0.1' }, resolve))
    cleanup.push(() => new Promise((resolve) => holder.close(() => resolve())))
    const port = (holder.address() as { port: number }).port
    const base = await mkdtemp(join(tmpdir(), 'kcore-serve-'))
    cleanup.push(() => rm(base, { recursive: true, force: true }))
    const dataDir = await emptyCluster(join(base, 'db'))
    const config = loadConfig(
      {},
      {
        port,
        host: '127.0.0.1',
        dataDir,
        seed: false,
        schedulerEnabled: false,
        logLevel: 'silent',
      },
    )
    const failure = await runServer(config).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(failure).toBeInstanceOf(ConfigError)
    expect(String((failure as Error).message)).toMatch(
      new RegExp(
        `^Invalid configuration: port ${port} on 127\\.0\\.0\\.1 is already in use; [^\\n]*$`,
      ),
    )
  })
})
