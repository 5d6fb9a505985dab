package io.verglas.cache.writeback.code;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureEncoder;

/**
 * Encodes a body into {@code k + m} fragments one stripe at a time, as it arrives.
 *
 * <p>Design: body bytes are copied into one stripe buffer of {@code k * cell} bytes (the data
 * cells side by side, so a short last stripe is re-cut into {@code k} smaller cells without
 * moving bytes); when it is full the parity cells are computed by Hadoop's Reed–Solomon coder
 * and all {@code k + m} cells go to the {@link StripeSink}. Memory is {@code (k + m) * cell}
 * bytes whatever the body's size. Bodies arrive as an {@link InputStream} ({@link #transfer})
 * or as chunks ({@link #write}, for a network handler's buffers); {@link #finish} encodes the
 * last, partial stripe. Not thread-safe: one encoder per body.
 */
public final class StripeEncoder {
  private final Geometry geometry;
  private final RawErasureEncoder encoder;
  private final StripeSink sink;
  private final byte[] data;
  private final byte[][] parity;
  private int filled;
  private long stripes;
  private long bodyLength;
  private boolean finished;

  public StripeEncoder(Geometry geometry, StripeSink sink) {
    this.geometry = Objects.requireNonNull(geometry, "geometry");
    this.sink = Objects.requireNonNull(sink, "sink");
    this.encoder = ReedSolomon.encoder(geometry);
    this.data = new byte[Math.toIntExact(geometry.stripeBytes())];
    this.parity = new byte[geometry.parityFragments()][geometry.cellBytes()];
  }

  public Geometry geometry() {
    return geometry;
  }

  /** Encodes everything {@code body} holds, up to its end; returns the bytes read. */
  public long transfer(InputStream body) throws IOException {
    return transfer(body, Long.MAX_VALUE);
  }

  /**
   * Encodes what {@code body} holds up to its end or {@code maxBytes}, whichever comes first,
   * read straight into the stripe buffer; returns the bytes read.
   */
  public long transfer(InputStream body, long maxBytes) throws IOException {
    checkOpen();
    long read = 0;
    int n;
    while (read < maxBytes
        && (n = body.read(data, filled, (int) Math.min(data.length - filled, maxBytes - read))) >= 0) {
      advance(n);
      read += n;
    }
    return read;
  }

  /** Encodes the chunk's remaining bytes (its position moves to its limit). */
  public void write(ByteBuffer chunk) throws IOException {
    checkOpen();
    while (chunk.hasRemaining()) {
      int n = Math.min(chunk.remaining(), data.length - filled);
      chunk.get(data, filled, n);
      advance(n);
    }
  }

  /** Encodes the last, partial stripe; returns the body's length. Later calls return it again. */
  public long finish() throws IOException {
    if (!finished) {
      finished = true;
      if (filled > 0) {
        encodeStripe(filled);
      }
    }
    return bodyLength;
  }

  private void advance(int n) throws IOException {
    filled += n;
    bodyLength += n;
    if (filled == data.length) {
      encodeStripe(filled);
    }
  }

  private void encodeStripe(int bytes) throws IOException {
    int k = geometry.dataFragments();
    int cell = bytes == data.length ? geometry.cellBytes() : geometry.lastCell(bytes);
    Arrays.fill(data, bytes, k * cell, (byte) 0);
    ByteBuffer[] cells = new ByteBuffer[geometry.totalFragments()];
    for (int i = 0; i < k; i++) {
      cells[i] = ByteBuffer.wrap(data, i * cell, cell);
    }
    for (int j = 0; j < parity.length; j++) {
      cells[k + j] = ByteBuffer.wrap(parity[j], 0, cell);
    }
    encoder.encode(Arrays.copyOf(cells, k), Arrays.copyOfRange(cells, k, cells.length));
    for (int i = 0; i < k; i++) {
      cells[i].position(i * cell); // the coder moved the inputs to their limits
    }
    sink.accept(stripes++, cells);
    filled = 0;
  }

  private void checkOpen() {
    if (finished) {
      throw new IllegalStateException("Cannot encode more body bytes: the encoder is finished");
    }
  }
}
