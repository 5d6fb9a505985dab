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
 * <p>Design: body bytes are copied into a stripe buffer of {@code k * cell} bytes (the data
 * cells side by side, so a short last stripe is re-cut into {@code k} smaller cells without
 * moving bytes), unless a chunk given to {@link #write} holds whole stripes, which are coded
 * where they lie; when the buffer is full the parity cells are computed by Hadoop's
 * Reed–Solomon coder and all {@code k + m} cells go to the {@link StripeSink}. There are two
 * stripe buffers, used in turn, so a sink may still be writing one stripe's cells while the
 * next is filled and coded ({@link StripeSink#accept}). Memory is at most {@code 2 * (k + m) *
 * cell} bytes whatever the body's size, made as first needed. Bodies arrive as an {@link InputStream} ({@link #transfer})
 * or as chunks ({@link #write}, for a network handler's buffers); {@link #finish} encodes the
 * last, partial stripe. Not thread-safe: one encoder per body.
 */
public final class StripeEncoder {
  private final Geometry geometry;
  private final RawErasureEncoder encoder;
  private final StripeSink sink;
  private final int stripeBytes;
  private final byte[][] data = new byte[2][];
  private final byte[][][] parity = new byte[2][][];
  private int turn;
  private int filled;
  private long stripes;
  private long bodyLength;
  private boolean finished;

  public StripeEncoder(Geometry geometry, StripeSink sink) {
    this.geometry = Objects.requireNonNull(geometry, "geometry");
    this.sink = Objects.requireNonNull(sink, "sink");
    this.encoder = ReedSolomon.encoder(geometry);
    this.stripeBytes = Math.toIntExact(geometry.stripeBytes());
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
        && (n = body.read(data(), filled, (int) Math.min(stripeBytes - filled, maxBytes - read))) >= 0) {
      advance(n);
      read += n;
    }
    return read;
  }

  /**
   * Encodes the chunk's remaining bytes (its position moves to its limit). Whole stripes of a
   * heap chunk that start on a stripe boundary are encoded where they lie, without a copy; the
   * sink is then {@linkplain StripeSink#release released} before this returns, so the caller
   * may reuse the chunk.
   */
  public void write(ByteBuffer chunk) throws IOException {
    checkOpen();
    boolean inPlace = false;
    while (chunk.hasRemaining()) {
      if (filled == 0 && chunk.hasArray() && chunk.remaining() >= stripeBytes) {
        encodeStripe(chunk.array(), chunk.arrayOffset() + chunk.position(), stripeBytes);
        chunk.position(chunk.position() + stripeBytes);
        bodyLength += stripeBytes;
        inPlace = true;
        continue;
      }
      int n = Math.min(chunk.remaining(), stripeBytes - filled);
      chunk.get(data(), filled, n);
      advance(n);
    }
    if (inPlace) {
      sink.release();
    }
  }

  /** Encodes the last, partial stripe; returns the body's length. Later calls return it again. */
  public long finish() throws IOException {
    if (!finished) {
      finished = true;
      if (filled > 0) {
        encodeBuffered();
      }
    }
    return bodyLength;
  }

  /** The current stripe buffer, made on first use (bodies coded in place need none). */
  private byte[] data() {
    if (data[turn] == null) {
      data[turn] = new byte[stripeBytes];
    }
    return data[turn];
  }

  private byte[][] parity() {
    if (parity[turn] == null) {
      parity[turn] = new byte[geometry.parityFragments()][geometry.cellBytes()];
    }
    return parity[turn];
  }

  private void advance(int n) throws IOException {
    filled += n;
    bodyLength += n;
    if (filled == stripeBytes) {
      encodeBuffered();
    }
  }

  /** Encodes the current stripe buffer's {@code filled} bytes, zero-padding a short last stripe; then switches buffers. */
  private void encodeBuffered() throws IOException {
    int cell = filled == stripeBytes ? geometry.cellBytes() : geometry.lastCell(filled);
    Arrays.fill(data(), filled, geometry.dataFragments() * cell, (byte) 0);
    encodeStripe(data(), 0, filled);
    filled = 0;
  }

  /** Encodes the stripe of {@code bytes} body bytes at {@code offset} of {@code body}, padded to whole cells. */
  private void encodeStripe(byte[] body, int offset, int bytes) throws IOException {
    int k = geometry.dataFragments();
    int cell = bytes == stripeBytes ? geometry.cellBytes() : geometry.lastCell(bytes);
    ByteBuffer[] cells = new ByteBuffer[geometry.totalFragments()];
    for (int i = 0; i < k; i++) {
      cells[i] = ByteBuffer.wrap(body, offset + i * cell, cell);
    }
    for (int j = 0; j < geometry.parityFragments(); j++) {
      cells[k + j] = ByteBuffer.wrap(parity()[j], 0, cell);
    }
    encoder.encode(Arrays.copyOf(cells, k), Arrays.copyOfRange(cells, k, cells.length));
    for (int i = 0; i < k; i++) {
      cells[i].position(offset + i * cell); // the coder moved the inputs to their limits
    }
    sink.accept(stripes++, cells);
    turn ^= 1;
  }

  private void checkOpen() {
    if (finished) {
      throw new IllegalStateException("Cannot encode more body bytes: the encoder is finished");
    }
  }
}
