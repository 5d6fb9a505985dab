package io.verglas.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class WalSegmentCodecTest {
  private static final WalSegmentHeader HEADER = new WalSegmentHeader(
      "6f1c2c1e-0000-4000-8000-000000000001", List.of("demo", "events"), 3, "ingest-0", 42L,
      5, 100L, 200L, 1_700_000_000_000L);
  private static final List<WalBatch> BATCHES = List.of(
      new WalBatch(100L, 2, "key-1", "first".getBytes(StandardCharsets.UTF_8)),
      new WalBatch(200L, 3, null, "second".getBytes(StandardCharsets.UTF_8)));

  /**
   * The version-1 bytes, as first written (golden file): still read, and the layout is the
   * version-2 layout (the writer's bytes differ only in the version field).
   */
  @Test
  void readsTheGoldenVersionOneBytes() throws Exception {
    byte[] golden = resource("/wal/segment-v1.bin");

    WalSegment decoded = WalSegmentCodec.decode(golden);
    assertThat(decoded.header()).isEqualTo(HEADER);
    assertThat(decoded.batches()).usingRecursiveFieldByFieldElementComparator()
        .isEqualTo(BATCHES);
    byte[] asVersionTwo = golden.clone();
    asVersionTwo[5] = 2;
    assertThat(WalSegmentCodec.encode(HEADER, BATCHES)).isEqualTo(asVersionTwo);
  }

  @Test
  void encodedPartsAreTheEncodedBytes() throws Exception {
    byte[] bytes = WalSegmentCodec.encode(HEADER, BATCHES);
    EncodedSegment parts = WalSegmentCodec.encodeParts(HEADER, BATCHES);
    assertThat(parts.length()).isEqualTo(bytes.length);
    assertThat(parts.newInputStream().readAllBytes()).isEqualTo(bytes);
    assertThat(parts.contentEquals(bytes)).isTrue();
    byte[] other = bytes.clone();
    other[other.length - 1] ^= 1;
    assertThat(parts.contentEquals(other)).isFalse();
  }

  /**
   * The version-2 bytes (golden file, made by {@link GoldenSegments}): a batch with zstd
   * buffers and one with lz4_frame buffers, as ingest writes them when clients compress. The
   * writer still produces exactly these bytes and the rows read back.
   */
  @Test
  void encodesAndDecodesTheGoldenVersionTwoBytes() throws Exception {
    byte[] golden = resource("/wal/segment-v2.bin");

    WalSegment decoded = WalSegmentCodec.decode(golden);
    assertThat(decoded.header()).isEqualTo(GoldenSegments.HEADER_V2);
    assertThat(WalSegmentCodec.encode(decoded.header(), decoded.batches())).isEqualTo(golden);
    assertThat(GoldenSegments.codecs(decoded)).containsExactly("zstd", "lz4_frame");
    assertThat(GoldenSegments.rows(decoded)).isEqualTo(GoldenSegments.expectedRows());
  }

  @Test
  void refusesUnknownVersions() {
    for (int version : new int[] {0, 3, 0xFFFF}) {
      byte[] bytes = WalSegmentCodec.encode(HEADER, BATCHES);
      bytes[4] = (byte) (version >>> 8);
      bytes[5] = (byte) version;
      assertThatThrownBy(() -> WalSegmentCodec.decode(bytes))
          .isInstanceOf(CorruptSegmentException.class)
          .hasMessage("Cannot read WAL segment: unknown version " + version);
    }
  }

  private byte[] resource(String name) throws java.io.IOException {
    try (java.io.InputStream in = getClass().getResourceAsStream(name)) {
      return in.readAllBytes();
    }
  }

  @Test
  void roundTripsHeaderAndBatches() {
    WalSegment segment = WalSegmentCodec.decode(WalSegmentCodec.encode(HEADER, BATCHES));

    assertThat(segment.header()).isEqualTo(HEADER);
    assertThat(segment.batches()).hasSize(2);
    assertThat(segment.batches().get(0).idempotencyKey()).isEqualTo("key-1");
    assertThat(segment.batches().get(1).idempotencyKey()).isNull();
    assertThat(segment.batches().get(1).arrowIpc()).isEqualTo("second".getBytes(StandardCharsets.UTF_8));
    assertThat(segment.position(1, 2)).isEqualTo(new WalPosition(200L, "ingest-0", 42L, 1, 2));
  }

  @Test
  void rejectsEveryFlippedByte() {
    byte[] bytes = WalSegmentCodec.encode(HEADER, BATCHES);
    for (int i = 0; i < bytes.length; i++) {
      byte[] corrupt = bytes.clone();
      corrupt[i] ^= 0x5A;
      int offset = i;
      assertThatThrownBy(() -> WalSegmentCodec.decode(corrupt))
          .as("flipped byte at offset %d", offset)
          .isInstanceOf(CorruptSegmentException.class);
    }
  }

  @Test
  void rejectsEveryTruncation() {
    byte[] bytes = WalSegmentCodec.encode(HEADER, BATCHES);
    for (int length = 0; length < bytes.length; length++) {
      byte[] truncated = Arrays.copyOf(bytes, length);
      assertThatThrownBy(() -> WalSegmentCodec.decode(truncated))
          .isInstanceOf(CorruptSegmentException.class);
    }
  }

  @Test
  void rejectsTrailingGarbage() {
    byte[] bytes = WalSegmentCodec.encode(HEADER, BATCHES);
    byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
    assertThatThrownBy(() -> WalSegmentCodec.decode(longer))
        .isInstanceOf(CorruptSegmentException.class)
        .hasMessageContaining("trailing");
  }

  @Test
  void layoutIsPinned() {
    // Pins the on-disk format: a change to the layout must bump FORMAT_VERSION.
    byte[] bytes = WalSegmentCodec.encode(HEADER, BATCHES);
    assertThat(Arrays.copyOf(bytes, 6)).containsExactly('V', 'W', 'A', 'L', 0, 2);
    assertThat(bytes).hasSize(goldenLength());
  }

  private static int goldenLength() {
    int header = (2 + 36) + 2 + (2 + 4) + (2 + 6) + 4 + (2 + 8) + 8 * 5 + 4;
    int body = (8 + 4 + 1 + 2 + 5 + 4 + 5) + (8 + 4 + 1 + 4 + 6);
    return 4 + 2 + 4 + header + 4 + 8 + body + 4;
  }

  @Test
  void randomBatchesRoundTrip() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int round = 0; round < 50; round++) {
      int count = random.nextInt(5);
      List<WalBatch> batches = new java.util.ArrayList<>();
      for (int i = 0; i < count; i++) {
        byte[] ipc = new byte[random.nextInt(2000)];
        random.nextBytes(ipc);
        batches.add(new WalBatch(random.nextLong(), random.nextInt(1000),
            random.nextBoolean() ? "k" + random.nextInt() : null, ipc));
      }
      WalSegment decoded = WalSegmentCodec.decode(WalSegmentCodec.encode(HEADER, batches));
      assertThat(decoded.batches()).as("seed %d", seed).hasSize(count);
      for (int i = 0; i < count; i++) {
        assertThat(decoded.batches().get(i).arrowIpc()).as("seed %d", seed)
            .isEqualTo(batches.get(i).arrowIpc());
      }
    }
  }
}
