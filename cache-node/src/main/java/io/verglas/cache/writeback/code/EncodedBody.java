package io.verglas.cache.writeback.code;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.Set;

/**
 * A body's {@code k + m} fragments held in memory (no CRCs, no files): for bodies small enough
 * to hold, and for measuring the coder without a disk ({@code bench writeback}) and checking it
 * against erasure patterns.
 */
public record EncodedBody(Geometry geometry, long bodyLength, byte[][] fragments) {
  public EncodedBody {
    Objects.requireNonNull(geometry, "geometry");
    if (fragments.length != geometry.totalFragments()) {
      throw new IllegalArgumentException("Invalid fragments: " + fragments.length + " for " + geometry);
    }
  }

  /** Encodes the body. */
  public static EncodedBody of(Geometry geometry, byte[] body) throws IOException {
    ByteArrayOutputStream[] out = new ByteArrayOutputStream[geometry.totalFragments()];
    for (int i = 0; i < out.length; i++) {
      out[i] = new ByteArrayOutputStream();
    }
    StripeEncoder encoder = new StripeEncoder(geometry, (stripe, cells) -> {
      for (int i = 0; i < cells.length; i++) {
        out[i].write(cells[i].array(), cells[i].arrayOffset() + cells[i].position(), cells[i].remaining());
      }
    });
    encoder.write(ByteBuffer.wrap(body));
    encoder.finish();
    byte[][] fragments = new byte[out.length][];
    for (int i = 0; i < out.length; i++) {
      fragments[i] = out[i].toByteArray();
    }
    return new EncodedBody(geometry, body.length, fragments);
  }

  /** The cells of the fragments, but for those in {@code erased}, which read as erasures. */
  public CellSource source(Set<Integer> erased) {
    return (fragment, stripe, cell) -> {
      if (erased.contains(fragment)) {
        return false;
      }
      cell.put(ByteBuffer.wrap(fragments[fragment], Math.toIntExact(stripe * geometry.cellBytes()), cell.remaining()));
      return true;
    };
  }

  /** Writes the body to {@code out}, reconstructed without the fragments in {@code erased}. */
  public void decode(Set<Integer> erased, OutputStream out) throws IOException {
    new StripeDecoder(geometry).decode(bodyLength, source(erased), out);
  }
}
