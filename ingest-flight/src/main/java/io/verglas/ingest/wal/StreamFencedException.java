package io.verglas.ingest.wal;

/**
 * Another process wrote a segment this writer was about to write: it owns the stream now. The
 * writer fails everything it holds and accepts nothing more; its batches were not written.
 */
public class StreamFencedException extends WalUnavailableException {
  public StreamFencedException(String message) {
    super(message);
  }
}
