import { describeGraphologyParity, rotatingPick } from './graphology-parity.js'

// In `pnpm test:all`, one file outside the sample picked afresh each run (one of three pick
// files, a file each so that each stays within its time).
describeGraphologyParity(rotatingPick())
