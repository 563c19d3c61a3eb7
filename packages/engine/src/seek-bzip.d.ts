declare module 'seek-bzip' {
  interface ByteSource {
    readByte(): number
    read(buffer: Uint8Array, offset: number, length: number): number
    seek(position: number): void
    eof(): boolean
  }
  interface ByteSink {
    writeByte(byte: number): void
    flush?(): void
  }
  /** seek-bzip's decoder; the underscored members are its (stable, pinned) block-level API. */
  class Bunzip {
    constructor(input: ByteSource, output: ByteSink)
    reader: { read(bits: number): number }
    streamCRC: number
    _init_block(): boolean
    _read_bunzip(): number
    _start_bunzip(input: ByteSource, output: ByteSink): void
    static decode(input: Uint8Array, output: ByteSink, multistream?: boolean): void
  }
  export default Bunzip
}
