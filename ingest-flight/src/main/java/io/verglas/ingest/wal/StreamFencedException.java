package io.verglas.ingest.wal;

/**
 * A newer process claimed this writer's stream (see {@link StreamClaim}): it owns the stream
 * now. The writer fails everything it holds and accepts nothing more; the batches of the segment
 * it had just written are durable but were not acknowledged.
 */
public class StreamFencedException extends WalUnavailableException {
  public StreamFencedException(String message) {
    super(message);
  }
}
