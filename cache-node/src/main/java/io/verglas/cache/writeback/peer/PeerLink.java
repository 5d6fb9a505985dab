package io.verglas.cache.writeback.peer;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.NoSuchFileException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import io.verglas.cache.writeback.fragment.CorruptFragmentException;
import io.verglas.cache.writeback.fragment.FragmentStoreFullException;

/**
 * One peer's write-back endpoint: sends a {@link FragmentProtocol} request, completes with the
 * answer within the cluster's peer timeout, or exceptionally (the peer's failure message, a
 * timeout, a closed connection).
 */
@FunctionalInterface
interface PeerLink {
  CompletableFuture<byte[]> send(byte[] request);

  /** Sends and waits: the answer, or the failure as the local store would have thrown it. */
  default byte[] call(byte[] request) throws IOException {
    return await(send(request));
  }

  static byte[] await(CompletableFuture<byte[]> answer) throws IOException {
    try {
      return answer.join();
    } catch (CompletionException | java.util.concurrent.CancellationException e) {
      throw translate(e.getCause() == null ? e : e.getCause());
    }
  }

  /** A peer's failure as the exception the local store throws for it, so callers treat both alike. */
  private static IOException translate(Throwable cause) {
    String message = String.valueOf(cause.getMessage());
    if (message.contains("NoSuchFileException")) {
      return new NoSuchFileException(message);
    }
    if (message.contains("CorruptFragmentException")) {
      return new CorruptFragmentException(message);
    }
    if (message.contains("FragmentStoreFullException")) {
      return new FragmentStoreFullException(message);
    }
    if (cause instanceof java.util.concurrent.TimeoutException) {
      return new InterruptedIOException("Cannot reach a peer's fragments: no answer within the peer timeout");
    }
    return cause instanceof IOException io ? io : new IOException(message, cause);
  }
}
