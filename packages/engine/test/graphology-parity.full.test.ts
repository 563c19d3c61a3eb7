import { caidaFiles } from './caida-data.js'
import { describeGraphologyParity } from './graphology-parity.js'

// Every real CAIDA file against graphology-cores (`pnpm test:full`); the default suite checks
// a sample, `pnpm test:all` the sample and a few more picked each run.
describeGraphologyParity(caidaFiles())
