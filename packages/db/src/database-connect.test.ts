import { createServer, type Server, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { DatabaseConnectError } from './database-connect-error.js'
import { openDatabase } from './open-database.js'

/** A local port that accepts connections and never answers (a stalled or blackholed server). */
async function silentServer(): Promise<{ server: Server; port: number; sockets: Socket[] }> {
  const sockets: Socket[] = []
  const server = createServer((socket) => void sockets.push(socket))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, port: (server.address() as { port: number }).port, sockets }
}

describe('connecting to PostgreSQL', () => {
  const servers: { server: Server; sockets: Socket[] }[] = []
  afterEach(async () => {
    for (const { server, sockets } of servers.splice(0)) {
      for (const s of sockets) s.destroy()
      await new Promise((r) => server.close(r))
    }
  })

  it.each([1, 250])(
    'gives up on a server that accepts and never answers after connectTimeoutMs=%i, one line, no password',
    async (connectTimeoutMs) => {
      const silent = await silentServer()
      servers.push(silent)
      const url = `postgres://kcore:s3cret@127.0.0.1:${silent.port}/kcore`
      const error = await openDatabase({ url, connectTimeoutMs }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(DatabaseConnectError)
      expect((error as Error).message).toBe(
        `cannot connect to the database at 127.0.0.1:${silent.port}/kcore: no answer within ${connectTimeoutMs} ms`,
      )
      // the client did get through TCP: only the timeout can have ended it
      expect(silent.sockets.length).toBeGreaterThan(0)
    },
  )

  it('reports a refused connection with the cause, one line', async () => {
    const silent = await silentServer()
    const { port } = silent
    await new Promise((r) => silent.server.close(r))
    const error = await openDatabase({ url: `postgres://u:pw@127.0.0.1:${port}/x` }).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(DatabaseConnectError)
    expect((error as Error).message).toMatch(
      new RegExp(`^cannot connect to the database at 127\\.0\\.0\\.1:${port}/x: .*ECONNREFUSED`),
    )
    expect((error as Error).message).not.toMatch(/pw|\n/)
  })

  it.skipIf(!process.env.DATABASE_URL)('opens a reachable server as before', async () => {
    const database = await openDatabase({
      url: process.env.DATABASE_URL!,
      connectTimeoutMs: 10_000,
    })
    expect(await database.ping()).toBe(true)
    await database.close()
  })
})
