import type { Answer, KcoreServer } from './kcore-process.js'
import type { SnapshotMirror } from './snapshot-mirror.js'

/**
 * POSTs `path` to every server at the same moment while the mirror holds provider listings:
 * whoever wins the refresh lock waits at its listing until every other request has answered
 * (409 expected), so the calls really overlap. Should two listings ever be held at once (two
 * lock holders), the gate opens too, and the mirror's `maxConcurrent` shows it.
 */
export async function refreshStorm(
  servers: KcoreServer[],
  mirror: SnapshotMirror,
  request: { path: string; json?: unknown; token: string },
): Promise<Answer[]> {
  const gate = mirror.holdListings()
  const calls = servers.map((server) =>
    server.call(request.path, { method: 'POST', json: request.json, token: request.token }),
  )
  await Promise.race([settled(calls, calls.length - 1), gate.heldAtOnce(2)])
  gate.release()
  return Promise.all(calls)
}

/** Resolves once `count` of the promises have settled, whichever way. */
function settled(promises: Promise<unknown>[], count: number): Promise<void> {
  return new Promise((resolve) => {
    let done = 0
    if (count <= 0) resolve()
    for (const p of promises) {
      p.finally(() => {
        if (++done === count) resolve()
      }).catch(() => {})
    }
  })
}
