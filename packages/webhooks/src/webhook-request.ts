import { Webhook } from 'standardwebhooks'

/** One outbox message, as the sender claimed it. */
export interface OutboxMessage {
  id: string
  type: string
  /** The body's `data`, as the JSON text stored at enqueue. */
  payloadJson: string
  created: Date
  secret: string
}

/**
 * The body and headers of one attempt, per the Standard Webhooks specification. The body is
 * the same on every attempt (its `timestamp` is when the change happened); the signature is
 * made by the `standardwebhooks` library over `webhook-id`, the send time and the body.
 */
export function webhookRequest(
  message: OutboxMessage,
  sentAt: Date,
): { body: string; headers: Record<string, string> } {
  // Spliced rather than parsed and re-serialized: `data` keeps the stored text exactly.
  const body = `{"type":${JSON.stringify(message.type)},"timestamp":${JSON.stringify(
    message.created.toISOString(),
  )},"data":${message.payloadJson}}`
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'kcore-webhooks/1',
      'webhook-id': message.id,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': new Webhook(message.secret).sign(message.id, sentAt, body),
    },
  }
}
