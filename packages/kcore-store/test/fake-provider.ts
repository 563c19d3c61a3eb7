import type { IpVersion, SnapshotProvider, SnapshotRef } from '@kcore/engine'

/**
 * An in-memory provider: `files` maps a date to the plain-text as-rel content offered for it.
 * Counts `open()` calls per date; `listError` makes `list` fail; `gate` holds every `open()`.
 */
export class FakeProvider implements SnapshotProvider {
  readonly files: Record<IpVersion, Map<string, string>> = { ipv4: new Map(), ipv6: new Map() }
  readonly opened: string[] = []
  listError: Record<IpVersion, Error | undefined> = { ipv4: undefined, ipv6: undefined }
  gate: Promise<void> | undefined

  /** Offer a snapshot; the listing keeps insertion order (deliberately not sorted). */
  offer(ipVersion: IpVersion, date: string, content: string): this {
    this.files[ipVersion].set(date, content)
    return this
  }

  async list(ipVersion: IpVersion): Promise<SnapshotRef[]> {
    const error = this.listError[ipVersion]
    if (error) throw error
    return [...this.files[ipVersion].keys()].map((date) => refFor(ipVersion, date))
  }

  async open(ref: SnapshotRef): Promise<ReadableStream<Uint8Array>> {
    this.opened.push(`${ref.ipVersion} ${ref.date}`)
    await this.gate
    const content = this.files[ref.ipVersion].get(ref.date)
    if (content === undefined) throw new Error(`no such file ${ref.fileName}`)
    const bytes = new TextEncoder().encode(content)
    return new ReadableStream({
      start(controller) {
        controller.enqueue(bytes)
        controller.close()
      },
    })
  }
}

/** The CAIDA file name and ref of one date. */
export function refFor(ipVersion: IpVersion, date: string): SnapshotRef {
  const compact = date.replaceAll('-', '')
  const fileName =
    ipVersion === 'ipv6' ? `${compact}.as-rel.v6-stable.txt.bz2` : `${compact}.as-rel.txt.bz2`
  return { ipVersion, date, serial: 1, fileName, url: `fake:///serial-1/${fileName}` }
}

/**
 * as-rel text of a clique on ASNs 1..size (every AS in it has shell index size-1) plus AS 100
 * hanging off AS 1 (shell index 1).
 */
export function cliqueSnapshot(size: number): string {
  const lines = ['# input clique: 1 2', '# IXP ASes: 9999']
  for (let a = 1; a <= size; a++) for (let b = a + 1; b <= size; b++) lines.push(`${a}|${b}|0`)
  lines.push('1|100|-1')
  return `${lines.join('\n')}\n`
}
