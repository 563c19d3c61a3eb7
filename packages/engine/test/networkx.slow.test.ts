import { describeNetworkxParity } from './networkx-parity.js'

// A serial-1 IPv4 and an IPv6 file; a serial-2 file in networkx-serial-2.slow.full.test.ts (a file
// of its own for time).
describeNetworkxParity(['20130201.as-rel.txt.bz2', '20220601.as-rel.v6-stable.txt.bz2'])
