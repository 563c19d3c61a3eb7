import contentType from 'content-type'
import { HttpError } from './http-error.js'

/** Largest request body either API accepts (common.md: 413 above it). */
export const MAX_BODY_BYTES = 1024 * 1024

const tooLarge = () =>
  new HttpError(413, 'payload_too_large', `Request body exceeds ${MAX_BODY_BYTES} bytes`)

/**
 * Reads a request body as JSON. Returns `undefined` for an empty body. Throws 413 past
 * {@link MAX_BODY_BYTES} (without reading the rest), 415 for a non-JSON content type or a
 * charset other than UTF-8 (JSON is UTF-8, RFC 8259 §8.1), 400 for malformed JSON.
 */
export async function readJsonBody(request: Request): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN)
  if (declared > MAX_BODY_BYTES) throw tooLarge()
  const text = await readLimitedText(request)
  if (text.trim() === '') return undefined
  const type = request.headers.get('content-type') ?? ''
  if (!isJsonContentType(type)) {
    throw new HttpError(415, 'unsupported_media_type', 'Request body must be application/json')
  }
  if (!isUtf8(type)) {
    throw new HttpError(415, 'unsupported_media_type', 'Request body must be UTF-8 encoded JSON')
  }
  try {
    return JSON.parse(text)
  } catch {
    throw new HttpError(400, 'invalid_json', 'Request body is not valid JSON')
  }
}

function parseType(type: string): contentType.ParsedMediaType | undefined {
  try {
    return contentType.parse(type)
  } catch {
    return undefined
  }
}

function isJsonContentType(type: string): boolean {
  const mime = parseType(type)?.type ?? ''
  return mime === 'application/json' || (mime.startsWith('application/') && mime.endsWith('+json'))
}

function isUtf8(type: string): boolean {
  const charset = parseType(type)?.parameters.charset
  return charset === undefined || charset.toLowerCase() === 'utf-8'
}

async function readLimitedText(request: Request): Promise<string> {
  if (!request.body) return ''
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {})
      throw tooLarge()
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new HttpError(400, 'invalid_json', 'Request body is not valid UTF-8')
  }
}
