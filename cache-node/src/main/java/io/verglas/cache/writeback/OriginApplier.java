package io.verglas.cache.writeback;

import io.verglas.cache.origin.ETags;
import io.verglas.cache.origin.ObjectBody;
import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.OriginException;
import io.verglas.cache.origin.WriteCondition;
import io.verglas.cache.origin.WriteOptions;
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
 *
 * <p>Conditional propagation. A write with an {@link OriginExpectation} first reads the key's
 * state on the origin (HEAD): the write's own ETag means an earlier attempt delivered it (a
 * crash before its clean mark) and nothing is written; a state the expectation does not allow
 * is a {@link PropagationConflictException}; otherwise the PUT carries {@code If-Match} that
 * ETag ({@code If-None-Match: *} for a missing key), so a write to the origin between the HEAD
 * and the PUT is a conflict too, never overwritten. A delete with an expectation reads the
 * state the same way: a missing key is done already; a state the expectation does not allow is a
 * conflict; otherwise the DELETE carries {@code If-Match} that ETag (a write between the HEAD and
 * the DELETE is a conflict), or, on an origin that cannot delete conditionally (501), goes
 * unconditionally right after the HEAD that verified the state. Deletes and writes without an
 * expectation are unconditional.
 */
final class OriginApplier implements OriginWriter {
  private final Origin origin;

  OriginApplier(Origin origin) {
    this.origin = Objects.requireNonNull(origin, "origin");
  }

  @Override
  public void put(String bucket, String key, Map<String, String> metadata, long length, InputStream body)
      throws IOException {
    WriteOptions options = WriteBackMetadata.options(metadata);
    Optional<OriginExpectation> expected = OriginExpectation.in(metadata);
    if (expected.isEmpty()) {
      await(origin.put(bucket, key, readOnce(body, length), options));
      return;
    }
    String state = stateOf(bucket, key);
    if (ETags.matches(state, metadata.get(WriteBackMetadata.ETAG))) {
      return; // delivered by an earlier attempt
    }
    if (!expected.get().allows(state)) {
      throw conflict(bucket, key, state, expected.get());
    }
    try {
      await(origin.put(bucket, key, readOnce(body, length), options.withCondition(OriginExpectation.condition(state))));
    } catch (OriginException e) {
      if (e.reason() == OriginException.Reason.PRECONDITION_FAILED || e.reason() == OriginException.Reason.NO_SUCH_KEY) {
        throw conflict(bucket, key, "changed since " + state, expected.get());
      }
      throw e;
    }
  }

  private String stateOf(String bucket, String key) throws IOException {
    String state = await(OriginExpectation.stateOf(origin.head(bucket, key)));
    if (state == null) {
      throw new IOException("Cannot read the origin's state of " + bucket + "/" + key + " before propagating it");
    }
    return state;
  }

  private static PropagationConflictException conflict(String bucket, String key, String state,
      OriginExpectation expected) {
    return new PropagationConflictException("Cannot propagate " + bucket + "/" + key + ": the origin holds it as "
        + state + ", written around the cache since the change was acknowledged (expected one of "
        + expected.states() + ")");
  }

  @Override
  public void delete(String bucket, String key, Map<String, String> metadata) throws IOException {
    Optional<OriginExpectation> expected = OriginExpectation.in(metadata);
    if (expected.isEmpty()) {
      await(origin.delete(bucket, key, WriteCondition.NONE));
      return;
    }
    String state = stateOf(bucket, key);
    if (OriginExpectation.ABSENT.equals(state)) {
      return; // deleted already: by an earlier attempt, or around the cache
    }
    if (!expected.get().allows(state)) {
      throw conflict(bucket, key, state, expected.get());
    }
    try {
      await(origin.delete(bucket, key, WriteCondition.ifMatch(state)));
    } catch (OriginException e) {
      switch (e.reason()) {
        case PRECONDITION_FAILED -> throw conflict(bucket, key, "changed since " + state, expected.get());
        case NO_SUCH_KEY -> { } // deleted around the cache since the HEAD: what the delete was to do
        case NOT_IMPLEMENTED -> await(origin.delete(bucket, key, WriteCondition.NONE)); // verified by the HEAD
        default -> throw e;
      }
    }
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
