import { normalizedShell, type ShellPage } from '@kcore/store'

/** Output formats of a streamed shell list. */
export type ShellFormat = 'json' | 'ndjson' | 'csv'

/** Content type of each format. */
export const SHELL_CONTENT_TYPES: Record<ShellFormat, string> = {
  json: 'application/json; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
}

/** What the JSON envelope says before the rows. */
export interface ShellListHead {
  date: string
  ip_version: string
  max_shell_index: number
  count: number
}

/** One page as text in the format; `first` says whether a row came before (JSON commas). */
function pageText(format: ShellFormat, page: ShellPage, first: boolean): string {
  const parts: string[] = []
  for (let i = 0; i < page.asns.length; i++) {
    const asn = page.asns[i]!
    const shell = page.shells[i]!
    const normalized = normalizedShell(shell, page.maxShell)
    if (format === 'csv') parts.push(`${asn},${shell},${normalized}\n`)
    else {
      const row = `{"asn":${asn},"shell_index":${shell},"normalized_shell_index":${normalized}}`
      parts.push(format === 'ndjson' ? `${row}\n` : first && i === 0 ? row : `,${row}`)
    }
  }
  return parts.join('')
}

/**
 * A byte stream of a snapshot's shell list, pulled page by page: the next page is only queried
 * when the client has read the previous one (backpressure), so the server holds one page at a
 * time whatever the snapshot size. Cancelling the body (the client went away) closes the page
 * generator, which holds no connection between pages.
 */
export function shellListStream(
  format: ShellFormat,
  head: ShellListHead,
  pages: AsyncGenerator<ShellPage>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  let first = true
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (format === 'csv')
          controller.enqueue(encoder.encode('asn,shell_index,normalized_shell_index\n'))
        if (format === 'json') {
          const { date, ip_version, max_shell_index, count } = head
          const prefix = JSON.stringify({ date, ip_version, max_shell_index, count })
          controller.enqueue(encoder.encode(`${prefix.slice(0, -1)},"shells":[`))
        }
      },
      async pull(controller) {
        const next = await pages.next()
        if (next.done) {
          if (format === 'json') controller.enqueue(encoder.encode(']}'))
          controller.close()
          return
        }
        controller.enqueue(encoder.encode(pageText(format, next.value, first)))
        if (next.value.asns.length > 0) first = false
      },
      async cancel() {
        await pages.return(undefined)
      },
    },
    { highWaterMark: 0 },
  )
}
