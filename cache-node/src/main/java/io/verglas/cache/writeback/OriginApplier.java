package io.verglas.cache.writeback;

import io.verglas.cache.origin.ObjectBody;
import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.OriginException;
import io.verglas.cache.origin.WriteCondition;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Applies buffered changes to an {@link Origin}, blocking until it answered: what the propagator
 * writes through. A buffered body is reconstructed as it is read, so it can be read once: an
 * origin that would read it again (a retry inside the origin) fails that attempt, and the
 * propagator's next pass retries with a fresh reconstruction.
 */
final class OriginApplier implements OriginWriter {
  private final Origin origin;

  OriginApplier(Origin origin) {
    this.origin = Objects.requireNonNull(origin, "origin");
  }

  @Override
  public void put(String bucket, String key, Map<String, String> metadata, long length, InputStream body)
      throws IOException {
    await(origin.put(bucket, key, readOnce(body, length), WriteBackMetadata.options(metadata)));
  }

  @Override
  public void delete(String bucket, String key) throws IOException {
    await(origin.delete(bucket, key, WriteCondition.NONE));
  }

  /** When the origin's object of the key was last written; empty when there is none. */
  Optional<Instant> lastModified(String bucket, String key) throws IOException {
    try {
      return Optional.of(await(origin.head(bucket, key)).lastModified());
    } catch (OriginException e) {
      if (e.reason() == OriginException.Reason.NO_SUCH_KEY) {
        return Optional.empty();
      }
      throw e;
    }
  }

  static ObjectBody readOnce(InputStream body, long length) {
    return new ObjectBody() {
      private boolean opened;

      @Override
      public long length() {
        return length;
      }

      @Override
      public synchronized InputStream openStream() throws IOException {
        if (opened) {
          throw new IOException("Cannot read a buffered write's body twice: it is retried on the next pass");
        }
        opened = true;
        return body;
      }
    };
  }

  /** The future's value; its failure rethrown as it is (an unchecked origin error or an I/O error). */
  static <T> T await(CompletableFuture<T> future) throws IOException {
    try {
      return future.join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (cause instanceof IOException io) {
        throw io;
      }
      throw new IOException(cause);
    }
  }
}
