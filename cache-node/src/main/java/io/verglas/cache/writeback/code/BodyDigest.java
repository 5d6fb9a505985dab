package io.verglas.cache.writeback.code;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The MD5 of a body (its ETag), taken from the data cells of its stripes as the encoder hands
 * them over: one pass over the bytes the coder reads, not a second read of the body. Each
 * stripe is digested as a task on an executor, after the stripe before it, so on a thread of its
 * own the digest runs beside the coding of the next stripe and the fragment writes. The last
 * stripe's zero padding is left out. Not thread-safe: one per body, fed by its encoder.
 */
public final class BodyDigest implements StripeSink {
  private final MessageDigest md5 = newMd5();
  private final int dataFragments;
  private final Executor executor;
  private long left;
  private CompletableFuture<Void> running = CompletableFuture.completedFuture(null);

  /** @param executor runs the digest's tasks; a task never waits for another */
  public BodyDigest(Geometry geometry, long bodyLength, Executor executor) {
    this.dataFragments = geometry.dataFragments();
    this.left = bodyLength;
    this.executor = executor;
  }

  @Override
  public void accept(long stripe, ByteBuffer[] cells) {
    release();
    ByteBuffer[] data = new ByteBuffer[dataFragments];
    for (int i = 0; i < dataFragments; i++) {
      int bytes = (int) Math.min(cells[i].remaining(), left);
      data[i] = cells[i].duplicate().limit(cells[i].position() + bytes);
      left -= bytes;
    }
    running = CompletableFuture.runAsync(() -> {
      for (ByteBuffer cell : data) {
        md5.update(cell);
      }
    }, executor);
  }

  /** Waits for the stripe being digested. */
  @Override
  public void release() {
    running.join();
  }

  /** The MD5 of every body byte handed over, once its last stripe is digested. */
  public byte[] digest() {
    release();
    return md5.digest();
  }

  private static MessageDigest newMd5() {
    try {
      return MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("Cannot compute ETags: no MD5 in this JVM", e);
    }
  }
}
