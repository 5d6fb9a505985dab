package io.verglas.cache.s3;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Runs the writes to one key through this node one after another, without blocking a thread.
 *
 * <p>Design: a conditional write that the endpoint resolves against the current version (see
 * {@link WritePreconditions}) is a read followed by a write; the origin's native condition
 * protects it against other writers, but not every store evaluates conditions atomically
 * (s3proxy checks, then writes). Serializing the writes of a key inside the node makes
 * check-then-write atomic against every writer that comes through this node, whatever the
 * origin. Each key holds the tail of its chain in a map while writes are in flight, and the tail
 * removes itself when it completes, so memory is bounded by the writes in flight. A failed write
 * does not stop the next one.
 */
final class KeyedSequencer {
  private final ConcurrentHashMap<String, CompletableFuture<Void>> tails = new ConcurrentHashMap<>();

  <T> CompletableFuture<T> run(String bucket, String key, Supplier<CompletableFuture<T>> write) {
    String id = bucket + "/" + key;
    CompletableFuture<Void> mine = new CompletableFuture<>();
    @SuppressWarnings("unchecked")
    CompletableFuture<Void>[] previous = new CompletableFuture[1];
    tails.compute(id, (k, tail) -> {
      previous[0] = tail;
      return mine;
    });
    CompletableFuture<Void> start = previous[0] == null
        ? CompletableFuture.completedFuture(null)
        : previous[0];
    CompletableFuture<T> result = start.thenCompose(v -> write.get());
    result.whenComplete((value, error) -> {
      tails.remove(id, mine);
      mine.complete(null);
    });
    return result;
  }

  /** Keys with writes in flight (for tests). */
  int inFlight() {
    return tails.size();
  }
}
