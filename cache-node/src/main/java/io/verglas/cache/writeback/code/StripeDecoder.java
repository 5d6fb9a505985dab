package io.verglas.cache.writeback.code;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Objects;
import org.apache.hadoop.io.erasurecode.rawcoder.RawErasureDecoder;

/**
 * Reassembles a body from any {@code k} intact fragments of {@code k + m}, one stripe at a time.
 *
 * <p>Design: for each stripe it reads data cells first (the code is systematic: with all
 * {@code k} of them there is nothing to decode), then parity cells in fragment order until it
 * holds {@code k} intact cells; a cell its {@link CellSource} cannot deliver or that fails its
 * checksum is an erasure, so a corrupt fragment costs one parity fragment of budget, never
 * wrong bytes. The missing data cells are then decoded by Hadoop's Reed–Solomon decoder. With
 * fewer than {@code k} intact cells it throws {@link NotEnoughFragmentsException} before
 * writing any byte of that stripe. Memory: {@code (k + m) * cell} bytes. Not thread-safe.
 */
public final class StripeDecoder {
  private final Geometry geometry;
  private final RawErasureDecoder decoder;
  private final byte[] data;
  private final byte[][] parity;

  public StripeDecoder(Geometry geometry) {
    this.geometry = Objects.requireNonNull(geometry, "geometry");
    this.decoder = ReedSolomon.decoder(geometry);
    this.data = new byte[Math.toIntExact(geometry.stripeBytes())];
    this.parity = new byte[geometry.parityFragments()][geometry.cellBytes()];
  }

  public Geometry geometry() {
    return geometry;
  }

  /** Writes the body of {@code bodyLength} bytes to {@code out}, stripe by stripe. */
  public void decode(long bodyLength, CellSource source, OutputStream out) throws IOException {
    long stripes = geometry.stripes(bodyLength);
    for (long s = 0; s < stripes; s++) {
      ByteBuffer bytes = stripe(bodyLength, s, source);
      out.write(bytes.array(), bytes.position(), bytes.remaining());
    }
  }

  /**
   * The body bytes of stripe {@code stripe}, reconstructed when data cells are missing; valid
   * until the next call.
   */
  public ByteBuffer stripe(long bodyLength, long stripe, CellSource source) throws IOException {
    decodeStripe(stripe, geometry.cellLength(bodyLength, stripe), source);
    long rest = bodyLength - stripe * geometry.stripeBytes();
    return ByteBuffer.wrap(data, 0, (int) Math.min(rest, geometry.stripeBytes()));
  }

  private void decodeStripe(long stripe, int cell, CellSource source) throws IOException {
    int k = geometry.dataFragments();
    ByteBuffer[] inputs = new ByteBuffer[geometry.totalFragments()];
    int intact = 0;
    int erasedData = 0;
    for (int f = 0; f < inputs.length && intact < k; f++) {
      ByteBuffer buffer = cellBuffer(f, cell);
      if (source.read(f, stripe, buffer.duplicate())) {
        inputs[f] = buffer;
        intact++;
      } else if (f < k) {
        erasedData++;
      }
    }
    if (intact < k) {
      throw new NotEnoughFragmentsException("Cannot reconstruct stripe " + stripe + ": only " + intact
          + " intact fragments of the " + k + " needed (" + geometry + ")");
    }
    if (erasedData > 0) {
      reconstruct(inputs, erasedData, cell);
    }
  }

  private void reconstruct(ByteBuffer[] inputs, int erasedData, int cell) throws IOException {
    int[] erased = new int[erasedData];
    ByteBuffer[] outputs = new ByteBuffer[erasedData];
    for (int i = 0, e = 0; i < geometry.dataFragments(); i++) {
      if (inputs[i] == null) {
        erased[e] = i;
        outputs[e++] = cellBuffer(i, cell);
      }
    }
    decoder.decode(inputs, erased, outputs);
  }

  private ByteBuffer cellBuffer(int fragment, int cell) {
    int k = geometry.dataFragments();
    return fragment < k ? ByteBuffer.wrap(data, fragment * cell, cell) : ByteBuffer.wrap(parity[fragment - k], 0, cell);
  }
}
