package io.verglas.cache.writeback.code;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Encoding then decoding with any erasure pattern of at most {@code m} fragments gives the body
 * back byte for byte, over random bodies (empty, shorter than a cell, not a multiple of the
 * stripe) and geometries; more than {@code m} erasures fail, never return wrong bytes.
 */
class StripeCodingPropertiesTest {

  @Property(tries = 200)
  void anyKOfKPlusMFragmentsReconstructTheBody(@ForAll @IntRange(min = 1, max = 6) int k,
      @ForAll @IntRange(min = 1, max = 4) int m, @ForAll @IntRange(min = 1, max = 300) int cell,
      @ForAll @IntRange(min = 0, max = 5000) int length, @ForAll long seed) throws IOException {
    Random random = new Random(seed);
    byte[] body = bytes(random, length);
    EncodedBody coded = EncodedBody.of(new Geometry(k, m, cell), body);
    Set<Integer> erased = pick(random, k + m, random.nextInt(m + 1));
    assertThat(decode(coded, erased)).as("seed %d, erased %s", seed, erased).isEqualTo(body);
  }

  @Property(tries = 100)
  void skippingThenReadingGivesTheBodyFromThatOffset(@ForAll @IntRange(min = 1, max = 4) int k,
      @ForAll @IntRange(min = 1, max = 2) int m, @ForAll @IntRange(min = 1, max = 64) int cell,
      @ForAll @IntRange(min = 0, max = 3000) int length, @ForAll @IntRange(min = 0, max = 3100) int offset,
      @ForAll long seed) throws IOException {
    Random random = new Random(seed);
    byte[] body = bytes(random, length);
    EncodedBody coded = EncodedBody.of(new Geometry(k, m, cell), body);
    try (DecodedBody in = new DecodedBody(new StripeDecoder(coded.geometry()), length,
        coded.source(pick(random, k + m, m)), List.of())) {
      assertThat(in.skip(offset)).isEqualTo(Math.min(offset, length));
      assertThat(in.readAllBytes()).isEqualTo(Arrays.copyOfRange(body, Math.min(offset, length), length));
    }
  }

  @Property(tries = 100)
  void moreThanMErasuresFail(@ForAll @IntRange(min = 1, max = 5) int k,
      @ForAll @IntRange(min = 1, max = 3) int m, @ForAll @IntRange(min = 1, max = 5000) int length,
      @ForAll long seed) throws IOException {
    Random random = new Random(seed);
    EncodedBody coded = EncodedBody.of(new Geometry(k, m, 64), bytes(random, length));
    Set<Integer> erased = pick(random, k + m, m + 1 + random.nextInt(k));
    assertThatThrownBy(() -> decode(coded, erased)).as("seed %d", seed)
        .isInstanceOf(NotEnoughFragmentsException.class).hasMessageContaining("Cannot reconstruct stripe 0");
  }

  @Property(tries = 100)
  void fragmentsHaveTheGeometrysLengthAndDataFragmentsHoldTheBody(@ForAll @IntRange(min = 1, max = 6) int k,
      @ForAll @IntRange(min = 1, max = 300) int cell, @ForAll @IntRange(min = 0, max = 5000) int length,
      @ForAll long seed) throws IOException {
    Geometry geometry = new Geometry(k, 2, cell);
    byte[] body = bytes(new Random(seed), length);
    EncodedBody coded = EncodedBody.of(geometry, body);
    for (byte[] fragment : coded.fragments()) {
      assertThat((long) fragment.length).isEqualTo(geometry.fragmentDataLength(length));
    }
    ByteArrayOutputStream systematic = new ByteArrayOutputStream();
    for (long s = 0; s < geometry.stripes(length); s++) {
      int c = geometry.cellLength(length, s);
      for (int i = 0; i < k; i++) {
        systematic.write(coded.fragments()[i], (int) (s * cell), c);
      }
    }
    assertThat(Arrays.copyOf(systematic.toByteArray(), length)).isEqualTo(body);
  }

  @Property(tries = 100)
  void chunksAndStreamsEncodeAlike(@ForAll @IntRange(min = 1, max = 4) int k,
      @ForAll @IntRange(min = 1, max = 200) int cell, @ForAll @IntRange(min = 0, max = 4000) int length,
      @ForAll long seed) throws IOException {
    Random random = new Random(seed);
    Geometry geometry = new Geometry(k, 2, cell);
    byte[] body = bytes(random, length);
    List<byte[]> chunked = new ArrayList<>();
    StripeEncoder encoder = new StripeEncoder(geometry, (stripe, cells) -> chunked.add(concat(cells)));
    for (int at = 0; at < length; ) {
      int n = Math.min(length - at, random.nextInt(3 * cell + 1));
      encoder.write(ByteBuffer.wrap(body, at, n));
      at += n;
    }
    assertThat(encoder.finish()).isEqualTo(length);
    List<byte[]> streamed = new ArrayList<>();
    StripeEncoder reference = new StripeEncoder(geometry, (stripe, cells) -> streamed.add(concat(cells)));
    reference.transfer(new java.io.ByteArrayInputStream(body));
    reference.finish();
    assertThat(chunked).as("seed %d", seed).containsExactlyElementsOf(streamed);
  }

  static byte[] decode(EncodedBody coded, Set<Integer> erased) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    coded.decode(erased, out);
    return out.toByteArray();
  }

  static byte[] bytes(Random random, int length) {
    byte[] body = new byte[length];
    random.nextBytes(body);
    return body;
  }

  static Set<Integer> pick(Random random, int n, int count) {
    List<Integer> all = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      all.add(i);
    }
    Collections.shuffle(all, random);
    return new HashSet<>(all.subList(0, Math.min(count, n)));
  }

  private static byte[] concat(ByteBuffer[] cells) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (ByteBuffer cell : cells) {
      ByteBuffer copy = cell.duplicate();
      byte[] bytes = new byte[copy.remaining()];
      copy.get(bytes);
      out.writeBytes(bytes);
    }
    return out.toByteArray();
  }
}
