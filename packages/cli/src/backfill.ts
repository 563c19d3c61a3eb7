import { createProvider, type IpVersion } from '@kcore/engine'
import type { Config } from '@kcore/service'
import { openStores } from '@kcore/service'
import { type SyncProgress, syncFromProvider } from '@kcore/store'
import cliProgress from 'cli-progress'

/** Where backfill progress goes: a bar on a terminal, one plain line per snapshot otherwise. */
export interface ProgressOutput {
  isTTY?: boolean
  write(text: string): unknown
}

/**
 * Ingests every snapshot the provider lists that is not stored yet. Returns true when every
 * version was checked without error.
 */
export async function runBackfill(
  config: Config,
  options: { ipVersions: IpVersion[]; from?: string },
  out: ProgressOutput,
): Promise<boolean> {
  const { database, kcore } = await openStores(config)
  const report = progressReporter(out)
  try {
    const results = await syncFromProvider({
      store: kcore,
      provider: createProvider({ baseUrl: config.providerUrl }),
      ipVersions: options.ipVersions,
      from: options.from,
      onProgress: report.update,
    })
    report.stop()
    let ok = true
    for (const [version, result] of Object.entries(results)) {
      out.write(
        `${version}: ${result.added.length} added, latest ${result.latestDate ?? 'none'}${result.error ? `, error: ${result.error}` : ''}\n`,
      )
      ok &&= result.checked && !result.error
    }
    return ok
  } finally {
    report.stop()
    await database.close()
  }
}

function progressReporter(out: ProgressOutput) {
  let bar: cliProgress.SingleBar | undefined
  let barVersion: string | undefined
  return {
    update(p: SyncProgress) {
      if (!out.isTTY) {
        out.write(
          `${p.ipVersion} ${p.date} ${p.done}/${p.total} ${p.ok ? 'ok' : `failed: ${p.error}`}\n`,
        )
        return
      }
      if (barVersion !== p.ipVersion) {
        bar?.stop()
        bar = new cliProgress.SingleBar(
          {
            format: `${p.ipVersion} [{bar}] {value}/{total} snapshots | ETA {eta_formatted} | {date}`,
            stream: out as NodeJS.WritableStream,
          },
          cliProgress.Presets.shades_classic,
        )
        bar.start(p.total, 0, { date: '' })
        barVersion = p.ipVersion
      }
      bar?.update(p.done, { date: p.date })
    },
    stop() {
      bar?.stop()
      bar = undefined
    },
  }
}
