import type { Handler } from '@kcore/http-adapter'
import type { KcoreStore } from '@kcore/store'

/**
 * Answers the hot reads once in-process, before the service listens, so its first client does
 * not pay for compiling them: the store's trend statement ({@link KcoreStore.warm}) and one
 * `GET /api/health` through the handler (the router, validation, the response path). Reads
 * only. On PGlite it took a new process's first trend answer from a median of ~55 to ~18 ms
 * (`bench/first-answer.ts`); it costs the start about as much as it saves the first answer.
 */
export async function warmUp(handler: Handler, kcore: KcoreStore): Promise<void> {
  await kcore.warm()
  const response = await handler(new Request('http://localhost/api/health'))
  await response.arrayBuffer()
}
