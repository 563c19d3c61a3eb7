import type { Handler } from '@kcore/http-adapter'

/**
 * Answers one `GET /api/health` in-process before the service listens, so its first client
 * does not pay for compiling the router, validation and the response path. Reads only.
 */
export async function warmUp(handler: Handler): Promise<void> {
  const response = await handler(new Request('http://localhost/api/health'))
  await response.arrayBuffer()
}
