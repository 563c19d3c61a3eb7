declare module 'seek-bzip' {
  interface ByteSink {
    writeByte(byte: number): void
    flush?(): void
  }
  const Bunzip: {
    decode(input: Uint8Array, output: ByteSink, multistream?: boolean): void
  }
  export default Bunzip
}
