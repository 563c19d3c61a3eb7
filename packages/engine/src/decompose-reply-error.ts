import { AsRelParseError } from './as-rel-parse-error.js'
import type { DecomposeReply } from './decompose-messages.js'

/** @internal A worker's failure as the error the calling thread would have thrown. */
export function replyError(reply: Extract<DecomposeReply, { ok: false }>): Error {
  if (reply.name === 'AsRelParseError') return new AsRelParseError(reply.message, reply.line ?? 0)
  // whatIf's refusals keep their class, as the calling thread would have thrown them
  if (reply.name === 'RangeError') return new RangeError(reply.message)
  if (reply.name === 'TypeError') return new TypeError(reply.message)
  const error = new Error(reply.message)
  error.name = reply.name
  return error
}
