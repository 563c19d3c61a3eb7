import type { Handler } from '@kcore/http-adapter'
import type { KcoreStore } from '@kcore/store'

/**
 * Answers the hot reads once in-process, before the service listens, so its first client does
 * not pay for compiling them: the store's trend statement ({@link KcoreStore.warm}) and one
 * `GET /api/health` through the handler (the router, validation, the response path). Reads
 * only. On PGlite it took a new process's first trend answer from a median of 61–82 to 36–43
 * ms (max 102–203 to 75–94) for ~80 ms of start (`bench:trends:uncached`): the compiling moves
 * to the start, where no client waits on it.
 */
export async function warmUp(handler: Handler, kcore: KcoreStore): Promise<void> {
  const response = await handler(new Request('http://localhost/api/health'))
  await response.arrayBuffer()
}
