import { describeGraphologyParity } from './graphology-parity.js'

// Half of the real CAIDA files (every other one); graphology-parity-1.test.ts has the rest.
describeGraphologyParity(1)
