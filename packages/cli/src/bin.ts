#!/usr/bin/env node
import './v8-flags.js'
import { main } from './program.js'

// A reader that stops early (`kcore export … | head`) is not a failure: stop quietly with exit
// code 0, as Unix filters do. Node ignores SIGPIPE, so without this the failed write surfaces as
// an unhandled 'error' event (a stack trace and exit code 1). Nothing is left to write, and a
// read-only command has nothing to finish.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error
  process.exit(0)
})

main(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  // What was run (`bin/kcore.js` or this file), with the same Node flags.
  self: [process.execPath, ...process.execArgv, process.argv[1] ?? ''],
}).then((code) => {
  process.exitCode = code
})
