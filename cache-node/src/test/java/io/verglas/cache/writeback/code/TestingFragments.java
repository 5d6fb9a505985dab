package io.verglas.cache.writeback.code;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Set;

/** A body encoded into in-memory fragments, and a {@link CellSource} over them with chosen erasures. */
final class TestingFragments {
  final Geometry geometry;
  final long bodyLength;
  final byte[][] fragments;

  private TestingFragments(Geometry geometry, long bodyLength, byte[][] fragments) {
    this.geometry = geometry;
    this.bodyLength = bodyLength;
    this.fragments = fragments;
  }

  static TestingFragments encode(Geometry geometry, byte[] body) throws IOException {
    ByteArrayOutputStream[] out = new ByteArrayOutputStream[geometry.totalFragments()];
    for (int i = 0; i < out.length; i++) {
      out[i] = new ByteArrayOutputStream();
    }
    StripeEncoder encoder = new StripeEncoder(geometry, (stripe, cells) -> {
      for (int i = 0; i < cells.length; i++) {
        out[i].write(cells[i].array(), cells[i].arrayOffset() + cells[i].position(), cells[i].remaining());
      }
    });
    encoder.transfer(new ByteArrayInputStream(body));
    encoder.finish();
    byte[][] fragments = new byte[out.length][];
    for (int i = 0; i < out.length; i++) {
      fragments[i] = out[i].toByteArray();
    }
    return new TestingFragments(geometry, body.length, fragments);
  }

  /** Decodes with the fragments in {@code erased} unavailable. */
  byte[] decode(Set<Integer> erased) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new StripeDecoder(geometry).decode(bodyLength, source(erased), out);
    return out.toByteArray();
  }

  CellSource source(Set<Integer> erased) {
    return (fragment, stripe, cell) -> {
      if (erased.contains(fragment)) {
        return false;
      }
      long offset = stripe * geometry.cellBytes();
      try {
        cell.put(ByteBuffer.wrap(fragments[fragment], Math.toIntExact(offset), cell.remaining()));
      } catch (IndexOutOfBoundsException e) {
        throw new UncheckedIOException(new IOException("Cannot read cell " + stripe + " of fragment " + fragment, e));
      }
      return true;
    };
  }
}
