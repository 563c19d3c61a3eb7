// A webhook receiver that verifies every message kcore sends, with the Standard Webhooks
// library the sender signs with. Subscribe it first (the answer's `secret` is shown once):
//   curl -X POST http://localhost:8080/cal/events/v1/webhooks \
//     -H 'authorization: Bearer <CAL_TOKENS entry>' -H 'content-type: application/json' \
//     -d '{"url":"https://receiver.example.org/hooks","events":["event.created"]}'
// then run it with that secret:
//   WEBHOOK_SECRET=whsec_... PORT=3000 node --import tsx webhook-receiver.ts
// (a receiver on localhost needs `KCORE_WEBHOOKS_ALLOW_PRIVATE=1` on the kcore side).
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { pathToFileURL } from 'node:url'
import { Webhook } from 'standardwebhooks'

/** One verified message: what changed, when, and the record as the API renders it. */
export interface WebhookMessage {
  type: string
  timestamp: string
  data: unknown
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * An HTTP server that answers 204 to a message whose signature verifies and whose timestamp is
 * within five minutes (the library's tolerance, which stops replays), and 400 to anything else.
 * A delivery that gets no 2xx is retried by the sender, so `onMessage` may see a message again:
 * the `webhook-id` header (passed along) is the same on every attempt, to deduplicate by.
 */
export function createReceiver(
  secret: string,
  onMessage: (message: WebhookMessage, id: string) => void | Promise<void>,
): Server {
  const hook = new Webhook(secret)
  return createServer(async (request, response) => {
    const body = await readBody(request)
    let message: WebhookMessage
    try {
      message = hook.verify(body, request.headers as Record<string, string>) as WebhookMessage
    } catch {
      response.writeHead(400).end()
      return
    }
    await onMessage(message, String(request.headers['webhook-id']))
    response.writeHead(204).end()
  })
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const secret = process.env.WEBHOOK_SECRET
  if (!secret) {
    console.error('set WEBHOOK_SECRET to the whsec_… secret the subscription answered with')
    process.exit(1)
  }
  const port = Number(process.env.PORT ?? 3000)
  createReceiver(secret, (message, id) => {
    console.log(id, message.type, JSON.stringify(message.data))
  }).listen(port, () => console.log(`receiving on http://localhost:${port}`))
}
