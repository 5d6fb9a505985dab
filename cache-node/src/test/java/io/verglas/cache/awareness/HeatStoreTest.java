package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HeatStoreTest {
  private static final long HALF_LIFE_NANOS = 60_000_000_000L;
  private static final long HALF_LIFE_MILLIS = 60_000L;

  @TempDir
  Path dir;

  private final AtomicLong wall = new AtomicLong(1_700_000_000_000L);
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

  private HeatLedger ledger() {
    return new HeatLedger(HALF_LIFE_NANOS, 100, nanos::get);
  }

  private HeatStore store(int maxEntries) {
    return new HeatStore(dir.resolve("state"), maxEntries, HALF_LIFE_NANOS, wall::get);
  }

  private static HeatCoordinates at(String column) {
    return new HeatCoordinates("db.t", "p=1", column);
  }

  private static double heatOf(HeatLedger ledger, String column) {
    return ledger.table("db.t").stream().filter(h -> h.at().equals(at(column)))
        .mapToDouble(HeatLedger.Heat::heat).findFirst().orElse(0);
  }

  @Test
  void restoredHeatHasDecayedByTheWallClockTimeSinceTheSave() throws IOException {
    HeatLedger before = ledger();
    for (int i = 0; i < 4; i++) {
      before.record(at("a"));
    }
    before.record(at("b"));
    store(100).save(before);

    wall.addAndGet(2 * HALF_LIFE_MILLIS);   // down for two half-lives
    HeatLedger after = ledger();
    assertThat(store(100).restore(after)).isEqualTo(2);
    assertThat(heatOf(after, "a")).isCloseTo(1.0, within(1e-9));
    assertThat(heatOf(after, "b")).isCloseTo(0.25, within(1e-9));
    after.record(at("b"));
    assertThat(heatOf(after, "b")).as("reads after the restart add to it").isCloseTo(1.25, within(1e-9));
  }

  @Test
  void aClockThatWentBackDecaysNothing() throws IOException {
    HeatLedger before = ledger();
    before.record(at("a"));
    store(100).save(before);
    wall.addAndGet(-HALF_LIFE_MILLIS);
    HeatLedger after = ledger();
    store(100).restore(after);
    assertThat(heatOf(after, "a")).isEqualTo(1.0);
  }

  @Test
  void savesOnlyTheHottestEntriesUpToItsCap() throws IOException {
    HeatLedger before = ledger();
    String[] columns = {"a", "b", "c", "d"};
    for (int i = 0; i < columns.length; i++) {
      for (int reads = 0; reads <= i; reads++) {
        before.record(at(columns[i]));
      }
    }
    store(2).save(before);
    HeatLedger after = ledger();
    assertThat(store(2).restore(after)).isEqualTo(2);
    assertThat(after.table("db.t")).extracting(h -> h.at().column()).containsExactly("d", "c");
  }

  @Test
  void noFileRestoresNothing() {
    HeatLedger after = ledger();
    assertThat(store(100).restore(after)).isZero();
    assertThat(after.size()).isZero();
  }

  @Test
  void aCorruptFileIsMovedAsideAndIgnored() throws IOException {
    HeatLedger before = savedThenAltered(bytes -> bytes[bytes.length / 2] ^= 0x40);
    HeatLedger after = ledger();
    assertThat(store(100).restore(after)).isZero();
    assertThat(after.size()).isZero();
    assertThat(files()).singleElement().asString().startsWith(HeatStore.FILE_NAME + ".unreadable-");

    store(100).save(before);   // the next save writes a good file again
    assertThat(store(100).restore(ledger())).isEqualTo(1);
  }

  @Test
  void aFileOfAnotherFormatVersionIsIgnored() throws IOException {
    savedThenAltered(bytes -> bytes[7] = 9);   // format version 9
    assertThat(store(100).restore(ledger())).isZero();
    assertThat(files()).singleElement().asString().startsWith(HeatStore.FILE_NAME + ".unreadable-");
  }

  /** A ledger of one entry, saved, then the file's bytes changed by {@code alter}. */
  private HeatLedger savedThenAltered(java.util.function.Consumer<byte[]> alter) throws IOException {
    HeatLedger ledger = ledger();
    ledger.record(at("a"));
    store(100).save(ledger);
    Path file = dir.resolve("state").resolve(HeatStore.FILE_NAME);
    byte[] bytes = Files.readAllBytes(file);
    alter.accept(bytes);
    Files.write(file, bytes);
    return ledger;
  }

  private java.util.List<String> files() throws IOException {
    try (Stream<Path> files = Files.list(dir.resolve("state"))) {
      return files.map(p -> p.getFileName().toString()).toList();
    }
  }
}
