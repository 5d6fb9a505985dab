package io.verglas.ingest.flight;

/**
 * How many DoPut calls a server runs at once, in total and per client connection. A call over
 * either bound is refused at once with RESOURCE_EXHAUSTED; the client retries once one of its
 * other calls ended.
 *
 * <p>The total is also what bounds the memory of received batches: a put holds one batch at a
 * time (see {@link PutFlow}), at most the message cap ({@code maxBatchBytes} + 1 MiB), and
 * twice that for a moment, while gRPC's buffer is copied into Arrow's or while the batch is
 * compressed. So puts take at most {@code maxConcurrentPuts} x 2 x the cap of direct memory:
 * about 2 GiB with the defaults (16 puts, 64 MiB batches).
 */
public record PutLimits(int maxConcurrentPuts, int maxConcurrentPutsPerConnection) {
  public static final int MAX_CONCURRENT_PUTS_DEFAULT = 16;
  public static final int MAX_CONCURRENT_PUTS_PER_CONNECTION_DEFAULT = 8;

  public PutLimits {
    if (maxConcurrentPuts <= 0) {
      throw new IllegalArgumentException("Invalid max concurrent puts: " + maxConcurrentPuts);
    }
    if (maxConcurrentPutsPerConnection <= 0) {
      throw new IllegalArgumentException("Invalid max concurrent puts per connection: "
          + maxConcurrentPutsPerConnection);
    }
  }

  public static PutLimits defaults() {
    return new PutLimits(MAX_CONCURRENT_PUTS_DEFAULT, MAX_CONCURRENT_PUTS_PER_CONNECTION_DEFAULT);
  }
}
