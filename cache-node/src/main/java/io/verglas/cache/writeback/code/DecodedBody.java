package io.verglas.cache.writeback.code;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;

/**
 * A body read back from its fragments as an {@link InputStream}: each stripe is reconstructed
 * when the reader reaches it, so memory stays at one stripe whatever the body's size; a stripe
 * that cannot be reconstructed fails the read that reaches it with {@link
 * NotEnoughFragmentsException}. Closing it closes the fragment readers it was given.
 */
public final class DecodedBody extends InputStream {
  private final StripeDecoder decoder;
  private final long bodyLength;
  private final CellSource source;
  private final List<? extends Closeable> resources;
  private final long stripes;
  private ByteBuffer current = ByteBuffer.allocate(0);
  private long next;

  public DecodedBody(StripeDecoder decoder, long bodyLength, CellSource source, List<? extends Closeable> resources) {
    this.decoder = Objects.requireNonNull(decoder, "decoder");
    this.source = Objects.requireNonNull(source, "source");
    this.resources = List.copyOf(resources.stream().filter(Objects::nonNull).toList());
    this.bodyLength = bodyLength;
    this.stripes = decoder.geometry().stripes(bodyLength);
  }

  @Override
  public int read() throws IOException {
    return fill() ? current.get() & 0xFF : -1;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    Objects.checkFromIndexSize(off, len, b.length);
    if (len == 0) {
      return 0;
    }
    if (!fill()) {
      return -1;
    }
    int n = Math.min(len, current.remaining());
    current.get(b, off, n);
    return n;
  }

  /**
   * Skips without decoding the whole stripes it passes over (a range read of a large body then
   * costs the stripes it returns, not the ones before them).
   */
  @Override
  public long skip(long n) throws IOException {
    if (n <= 0) {
      return 0;
    }
    long skipped = Math.min(n, current.remaining());
    current.position(current.position() + (int) skipped);
    long stripeBytes = decoder.geometry().stripeBytes();
    while (n - skipped >= stripeBytes && next < stripes - 1) {
      next++;
      skipped += stripeBytes;
    }
    while (skipped < n && fill()) {
      int step = (int) Math.min(n - skipped, current.remaining());
      current.position(current.position() + step);
      skipped += step;
    }
    return skipped;
  }

  private boolean fill() throws IOException {
    while (!current.hasRemaining()) {
      if (next == stripes) {
        return false;
      }
      current = decoder.stripe(bodyLength, next++, source);
    }
    return true;
  }

  @Override
  public void close() throws IOException {
    IOException failure = null;
    for (Closeable resource : resources) {
      try {
        resource.close();
      } catch (IOException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
