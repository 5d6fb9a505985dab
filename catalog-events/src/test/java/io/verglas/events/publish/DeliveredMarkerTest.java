package io.verglas.events.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeliveredMarkerTest {
  @TempDir Path dir;

  @Test
  void readsAndWritesTheGoldenVersionOneRecords() throws IOException {
    byte[] golden = resource("/outbox/delivered-v1.bin");

    assertThat(Arrays.copyOfRange(golden, 0, 32))
        .isEqualTo(DeliveredMarker.encode(2, new OutboxPosition(4, 1234)));
    assertThat(Arrays.copyOfRange(golden, 32, 64))
        .isEqualTo(DeliveredMarker.encode(3, new OutboxPosition(5, 0)));
    Files.write(dir.resolve("delivered"), golden);
    try (DeliveredMarker marker = DeliveredMarker.open(dir.resolve("delivered"))) {
      assertThat(marker.recovered()).contains(new OutboxPosition(5, 0));
      assertThat(marker.damaged()).isFalse();
    }
  }

  @Test
  void aNewMarkerHasNoPositionAndKeepsTheLastWritten() throws IOException {
    Path file = dir.resolve("delivered");
    try (DeliveredMarker marker = DeliveredMarker.open(file)) {
      assertThat(marker.recovered()).isEmpty();
      assertThat(marker.damaged()).isFalse();
      marker.write(new OutboxPosition(1, 10), true);
      marker.write(new OutboxPosition(1, 20), true);
      marker.write(new OutboxPosition(2, 0), true);
    }
    try (DeliveredMarker marker = DeliveredMarker.open(file)) {
      assertThat(marker.recovered()).contains(new OutboxPosition(2, 0));
      marker.write(new OutboxPosition(2, 30), true);
    }
    try (DeliveredMarker marker = DeliveredMarker.open(file)) {
      assertThat(marker.recovered()).contains(new OutboxPosition(2, 30));
    }
  }

  @Test
  void aTornWriteFallsBackToThePreviousPosition() throws IOException {
    Path file = dir.resolve("delivered");
    try (DeliveredMarker marker = DeliveredMarker.open(file)) {
      marker.write(new OutboxPosition(1, 10), true); // record 1
      marker.write(new OutboxPosition(1, 20), true); // record 0
    }
    try (RandomAccessFile raw = new RandomAccessFile(file.toFile(), "rw")) {
      raw.seek(20); // inside record 0's offset field: a write cut short
      raw.write(new byte[] {7, 7, 7});
    }
    try (DeliveredMarker marker = DeliveredMarker.open(file)) {
      assertThat(marker.recovered()).contains(new OutboxPosition(1, 10));
    }
  }

  @Test
  void bothRecordsDamagedIsReportedAsDamaged() throws IOException {
    Path file = dir.resolve("delivered");
    Files.write(file, new byte[64]);
    try (DeliveredMarker marker = DeliveredMarker.open(file)) {
      assertThat(marker.recovered()).isEmpty();
      assertThat(marker.damaged()).isTrue();
    }
  }

  @Test
  void anUnknownVersionFailsNamingIt() throws IOException {
    byte[] record = DeliveredMarker.encode(1, new OutboxPosition(1, 0));
    ByteBuffer.wrap(record).putInt(0, 9);
    byte[] resealed = reseal(record);
    Path file = dir.resolve("delivered");
    Files.write(file, resealed);

    assertThatThrownBy(() -> DeliveredMarker.open(file))
        .hasMessage("Cannot read outbox marker " + file + ": unknown version 9 (this version"
            + " reads 1)");
  }

  private static byte[] reseal(byte[] record) {
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(record, 0, 28);
    ByteBuffer.wrap(record).putInt(28, (int) crc.getValue());
    return record;
  }

  private static byte[] resource(String name) throws IOException {
    try (InputStream in = DeliveredMarkerTest.class.getResourceAsStream(name)) {
      return in.readAllBytes();
    }
  }
}
