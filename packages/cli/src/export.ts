import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import type { IpVersion } from '@kcore/engine'
import { shellListStream } from '@kcore/http-adapter'
import type { Config } from '@kcore/service'
import { openStores } from '@kcore/service'
import type { KcoreStore, ShellPage } from '@kcore/store'
import cliProgress from 'cli-progress'
import { type Command, InvalidArgumentError, Option } from 'commander'
import { assertDatabaseExists } from './usage-error.js'

/** What `kcore export` needs from the program that registers it. */
export interface ExportCommandDeps {
  stdout: { isTTY?: boolean; write(text: string): unknown }
  /** Adds the shared database options to the command. */
  databaseOptions(command: Command): Command
  config(opts: Record<string, unknown>): Config
  done(code: number): void
}

const parseDate = (value: string) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new InvalidArgumentError('DATE must be YYYY-MM-DD')
  return value
}

/**
 * `kcore export DATE [--ip-version] [--format csv|ndjson] [--out FILE]`: a stored snapshot's
 * whole shell list as a file, from the same keyset pages and formatting as the HTTP route.
 */
export function addExportCommand(program: Command, deps: ExportCommandDeps): void {
  deps
    .databaseOptions(
      program
        .command('export')
        .description("Write a stored snapshot's shell list (every AS, ascending) as CSV or NDJSON.")
        .argument('<date>', 'a stored snapshot date, YYYY-MM-DD', parseDate)
        .addOption(
          new Option('--ip-version <version>', 'IP version')
            .choices(['ipv4', 'ipv6'])
            .default('ipv4'),
        )
        .addOption(
          new Option('--format <format>', 'output format')
            .choices(['csv', 'ndjson'])
            .default('csv'),
        )
        .option('--out <file>', 'write to FILE (default: standard output)'),
    )
    .action(async (date: string, opts) => {
      const { ipVersion, format, out, ...rest } = opts
      const config = deps.config(rest)
      assertDatabaseExists(config)
      const { database, kcore } = await openStores(config)
      try {
        const rows = await exportShells(kcore, { date, ipVersion, format, out }, deps.stdout)
        if (out) deps.stdout.write(`${out}: ${rows} ASes of the ${ipVersion} snapshot ${date}\n`)
      } finally {
        await database.close()
      }
      deps.done(0)
    })
}

/** Writes the shell list to `out` (or `stdout`) and returns the rows written. */
export async function exportShells(
  store: KcoreStore,
  options: { date: string; ipVersion: IpVersion; format: 'csv' | 'ndjson'; out?: string },
  stdout: ExportCommandDeps['stdout'],
): Promise<number> {
  const { date, ipVersion, format, out } = options
  // One reader: the record and the pages are of one revision's content.
  const reader = await store.reader()
  const snapshot = await reader.snapshot(ipVersion, date)
  // A bar only when the data goes to a file and a person watches the terminal.
  const bar =
    out && stdout.isTTY
      ? new cliProgress.SingleBar(
          {
            format: `${date} [{bar}] {value}/{total} ASes`,
            stream: stdout as NodeJS.WritableStream,
          },
          cliProgress.Presets.shades_classic,
        )
      : undefined
  bar?.start(snapshot.unique_asns, 0)
  let rows = 0
  async function* counted(): AsyncGenerator<ShellPage> {
    for await (const page of reader.shellPages(ipVersion, date)) {
      yield page
      rows += page.asns.length
      bar?.update(rows)
    }
  }
  const head = {
    date,
    ip_version: ipVersion,
    max_shell_index: snapshot.max_shell_index,
    count: snapshot.unique_asns,
  }
  const stream = shellListStream(format, head, counted())
  const file = out ? createWriteStream(out) : undefined
  try {
    const decoder = new TextDecoder()
    const reader = stream.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      if (!file) stdout.write(decoder.decode(value, { stream: true }))
      else if (!file.write(value)) await once(file, 'drain')
    }
  } finally {
    bar?.stop()
    if (file) {
      file.end()
      await once(file, 'close')
    }
  }
  return rows
}
