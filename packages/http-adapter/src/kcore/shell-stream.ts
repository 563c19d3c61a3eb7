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

/** The registry names of a page's ASNs (`include=names`). */
export type PageNames = (asns: readonly number[]) => Promise<ReadonlyMap<number, string>>

/**
 * A CSV field as RFC 4180 writes it: quoted, inner quotes doubled, when it holds a quote, a
 * comma or a line break; as it is otherwise. Names are the registry's text, never rewritten
 * (no formula-guarding prefix: a researcher's pandas or R reads the name exactly).
 */
export const csvField = (text: string) =>
  /["\r\n,]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text

/**
 * One page as text in the format; `first` says whether a row came before (JSON commas); `names`
 * (with `include=names`) adds a `name` member or column, null or empty where the registry has none.
 */
function pageText(
  format: ShellFormat,
  page: ShellPage,
  first: boolean,
  names: ReadonlyMap<number, string> | undefined,
): string {
  const parts: string[] = []
  for (let i = 0; i < page.asns.length; i++) {
    const asn = page.asns[i]!
    const shell = page.shells[i]!
    const normalized = normalizedShell(shell, page.maxShell)
    const name = names ? (names.get(asn) ?? null) : undefined
    if (format === 'csv') {
      const tail = name === undefined ? '' : `,${name === null ? '' : csvField(name)}`
      parts.push(`${asn},${shell},${normalized}${tail}\n`)
    } else {
      const tail = name === undefined ? '' : `,"name":${JSON.stringify(name)}`
      const row = `{"asn":${asn},"shell_index":${shell},"normalized_shell_index":${normalized}${tail}}`
      parts.push(format === 'ndjson' ? `${row}\n` : first && i === 0 ? row : `,${row}`)
    }
  }
  return parts.join('')
}

/**
 * A byte stream of a snapshot's shell list, pulled page by page: the next page is only queried
 * when the client has read the previous one (backpressure), so the server holds one page at a
 * time whatever the snapshot size. Cancelling the body (the client went away) closes the page
 * generator, which holds no connection between pages. With `names`, each page's names are read
 * beside it (one query per page of 10,000).
 */
export function shellListStream(
  format: ShellFormat,
  head: ShellListHead,
  pages: AsyncGenerator<ShellPage>,
  names?: PageNames,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  let first = true
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (format === 'csv')
          controller.enqueue(
            encoder.encode(`asn,shell_index,normalized_shell_index${names ? ',name' : ''}\n`),
          )
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
        const page = next.value
        const named = names ? await names(Array.from(page.asns)) : undefined
        controller.enqueue(encoder.encode(pageText(format, page, first, named)))
        if (page.asns.length > 0) first = false
      },
      async cancel() {
        await pages.return(undefined)
      },
    },
    { highWaterMark: 0 },
  )
}
