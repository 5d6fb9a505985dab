package io.verglas.cache.writeback.code;

/**
 * The coding geometry of one erasure-coded object: {@code k} data fragments, {@code m} parity
 * fragments and the cell size, the bytes each fragment takes from one stripe.
 *
 * <p>Layout: the body is cut into stripes of {@code k * cellBytes}; stripe {@code s}'s data
 * cell {@code i} is its bytes {@code [i * c, (i + 1) * c)} where {@code c} is the stripe's cell
 * length, and fragment {@code j} holds cell {@code j} of every stripe, in order (data fragments
 * {@code 0..k-1}, parity fragments {@code k..k+m-1}). Every stripe but the last is full; the
 * last one's cells are {@code ceil(rest / k)} bytes, its data zero-padded to {@code k} cells,
 * so a small object takes about {@code 1/k} of its size per fragment rather than a whole cell.
 * An empty body has no stripes. {@code k + m} is at most 255, the largest code over GF(2^8).
 */
public record Geometry(int dataFragments, int parityFragments, int cellBytes) {
  /** The most fragments a Reed–Solomon code over GF(2^8) has. */
  public static final int MAX_FRAGMENTS = 255;
  /** The largest cell: encoding holds {@code k + m} cells in memory. */
  public static final int MAX_CELL_BYTES = 64 << 20;

  public Geometry {
    if (dataFragments < 1) {
      throw new IllegalArgumentException("Invalid data fragments k=" + dataFragments + ": must be at least 1");
    }
    if (parityFragments < 1) {
      throw new IllegalArgumentException("Invalid parity fragments m=" + parityFragments + ": must be at least 1");
    }
    if (dataFragments + parityFragments > MAX_FRAGMENTS) {
      throw new IllegalArgumentException("Invalid geometry k=" + dataFragments + ", m=" + parityFragments
          + ": k+m must be at most " + MAX_FRAGMENTS);
    }
    if (cellBytes < 1 || cellBytes > MAX_CELL_BYTES) {
      throw new IllegalArgumentException("Invalid cell size " + cellBytes + ": must be 1.." + MAX_CELL_BYTES + " bytes");
    }
  }

  public int totalFragments() {
    return dataFragments + parityFragments;
  }

  /** Body bytes in a full stripe. */
  public long stripeBytes() {
    return (long) dataFragments * cellBytes;
  }

  /** The number of stripes of a body of {@code bodyLength} bytes. */
  public long stripes(long bodyLength) {
    checkLength(bodyLength);
    return (bodyLength + stripeBytes() - 1) / stripeBytes();
  }

  /** The cell length of stripe {@code stripe} of a body of {@code bodyLength} bytes. */
  public int cellLength(long bodyLength, long stripe) {
    long stripes = stripes(bodyLength);
    if (stripe < 0 || stripe >= stripes) {
      throw new IllegalArgumentException("Invalid stripe " + stripe + ": a body of " + bodyLength
          + " bytes has " + stripes + " stripes");
    }
    long rest = bodyLength - stripe * stripeBytes();
    return rest >= stripeBytes() ? cellBytes : lastCell(rest);
  }

  /** The cell length of a stripe holding {@code stripeData} body bytes (at most a full stripe). */
  public int lastCell(long stripeData) {
    return (int) ((stripeData + dataFragments - 1) / dataFragments);
  }

  /** Bytes of coded data in each fragment of a body of {@code bodyLength} bytes. */
  public long fragmentDataLength(long bodyLength) {
    checkLength(bodyLength);
    long full = bodyLength / stripeBytes();
    long rest = bodyLength % stripeBytes();
    return full * cellBytes + lastCell(rest);
  }

  private static void checkLength(long bodyLength) {
    if (bodyLength < 0) {
      throw new IllegalArgumentException("Invalid body length: " + bodyLength);
    }
  }

  @Override
  public String toString() {
    return "RS(" + dataFragments + "+" + parityFragments + ", cell " + cellBytes + ")";
  }
}
