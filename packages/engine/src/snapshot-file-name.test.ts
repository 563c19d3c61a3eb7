import { describe, expect, it } from 'vitest'
import { parseSnapshotFileName } from './snapshot-file-name.js'

describe('parseSnapshotFileName', () => {
  it('reads the three CAIDA kinds', () => {
    expect(parseSnapshotFileName('20130201.as-rel.txt.bz2')).toEqual({
      ipVersion: 'ipv4',
      date: '2013-02-01',
      serial: 1,
    })
    expect(parseSnapshotFileName('20220601.as-rel.v6-stable.txt.bz2')).toEqual({
      ipVersion: 'ipv6',
      date: '2022-06-01',
      serial: 1,
    })
    expect(parseSnapshotFileName('20240101.as-rel2.txt.bz2')).toEqual({
      ipVersion: 'ipv4',
      date: '2024-01-01',
      serial: 2,
    })
  })

  it('accepts .gz, plain .txt and a path', () => {
    expect(parseSnapshotFileName('/data/x/19980101.as-rel.txt')?.date).toBe('1998-01-01')
    expect(parseSnapshotFileName('C:\\mirror\\20200101.as-rel2.txt.gz')?.serial).toBe(2)
  })

  it('rejects other names and impossible dates', () => {
    for (const name of [
      '20130201.as-rel.t..>',
      '20130231.as-rel.txt.bz2',
      '20131301.as-rel.txt.bz2',
      '2013021.as-rel.txt.bz2',
      '20130201.as-rel.txt.bz2.md5',
      '20130201.as-rel2.v6-stable.txt.bz2',
      '20130201.ppdc-ases.txt.bz2',
      'README.txt',
      '',
    ]) {
      expect(parseSnapshotFileName(name), name).toBeUndefined()
    }
  })
})
