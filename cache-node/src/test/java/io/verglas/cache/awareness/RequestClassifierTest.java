package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.parquet.ParquetFooter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The request path's classification: it takes no lock (it completes while every lock of the
 * heat side is held by another thread), does no I/O (the classifier has no way to reach an
 * origin: it is built from the index and the buffer alone), and stays consistent while indexes
 * are swapped under concurrent readers.
 */
class RequestClassifierTest {
  private static FileLayout layout(String table, long... bounds) {
    List<ParquetFooter.ColumnChunk> chunks = new ArrayList<>();
    for (int i = 0; i + 1 < bounds.length; i++) {
      chunks.add(new ParquetFooter.ColumnChunk("c" + i, bounds[i], bounds[i + 1] - bounds[i], 1));
    }
    return FileLayout.of(table, "", "s3://b/f.parquet", bounds[bounds.length - 1] + 100, chunks);
  }

  @Test
  void classifiesReadsOfIndexedFilesAndCountsTheRest() {
    HeatSamples samples = new HeatSamples(16);
    RequestClassifier classifier = new RequestClassifier(samples);
    classifier.publish(FileIndex.EMPTY.withTable("db.t", 1, List.of(layout("db.t", 4, 100, 200)), 100).index());
    classifier.onRead("b", "f.parquet", 150, 160);
    classifier.onRead("b", "other.parquet", 0, 10);
    List<HeatCoordinates> seen = new ArrayList<>();
    samples.drain(seen::add);
    assertThat(seen).containsExactly(new HeatCoordinates("db.t", "", "c1"));
    assertThat(classifier.classified()).isEqualTo(1);
    assertThat(classifier.unknown()).isEqualTo(1);
  }

  @Test
  void aReadCutShortCountsOnlyTheChunksItSurelyRead() {
    HeatSamples samples = new HeatSamples(16);
    RequestClassifier classifier = new RequestClassifier(samples);
    classifier.publish(FileIndex.EMPTY.withTable("db.t", 1, List.of(layout("db.t", 4, 100, 200, 300)), 100).index());
    classifier.onCutShortRead("b", "f.parquet", 4, 250);
    classifier.onRead("b", "f.parquet", 150, 250);
    List<HeatCoordinates> seen = new ArrayList<>();
    samples.drain(seen::add);
    assertThat(seen).as("c2 delivered only in part when cut; read whole by the second").containsExactly(
        new HeatCoordinates("db.t", "", "c0"), new HeatCoordinates("db.t", "", "c1"),
        new HeatCoordinates("db.t", "", "c1"), new HeatCoordinates("db.t", "", "c2"));
    assertThat(classifier.classified()).isEqualTo(2);
  }

  @Test
  void classificationNeverWaitsForTheHeatSide() throws Exception {
    HeatSamples samples = new HeatSamples(4);
    HeatLedger ledger = new HeatLedger(1_000_000_000L, 10, System::nanoTime);
    Heat heat = new Heat(samples, ledger, 1_000_000_000L);
    RequestClassifier classifier = new RequestClassifier(samples);
    classifier.publish(FileIndex.EMPTY.withTable("db.t", 1, List.of(layout("db.t", 4, 100, 200)), 100).index());
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread holder = new Thread(() -> {
      synchronized (ledger) {
        synchronized (heat) {
          held.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      }
    });
    holder.start();
    held.await();
    try {
      CompletableFuture<Void> reads = CompletableFuture.runAsync(() -> {
        for (int i = 0; i < 100_000; i++) {
          classifier.onRead("b", "f.parquet", 0, 300);
        }
      });
      reads.get(30, TimeUnit.SECONDS);
      assertThat(samples.offered()).isEqualTo(200_000);
      assertThat(samples.dropped()).isEqualTo(200_000 - 4); // nobody drained: all but the ring dropped
    } finally {
      release.countDown();
      holder.join();
    }
  }

  @Test
  void indexSwapsUnderConcurrentReadersAreSafe() throws Exception {
    // Two generations of one key with different tables and layouts: every read must see one.
    FileIndex a = FileIndex.EMPTY.withTable("db.a", 1, List.of(layout("db.a", 4, 100, 200, 300)), 100).index();
    FileIndex b = FileIndex.EMPTY.withTable("db.b", 2, List.of(layout("db.b", 4, 50)), 100).index();
    RequestClassifier classifier = new RequestClassifier(new HeatSamples(1024));
    classifier.publish(a);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<String> mixed = new AtomicReference<>();
    List<Thread> readers = new ArrayList<>();
    for (int r = 0; r < 4; r++) {
      Thread reader = new Thread(() -> {
        List<HeatCoordinates> seen = new ArrayList<>();
        while (!stop.get()) {
          seen.clear();
          FileLayout layout = classifier.index().lookup("b", "f.parquet");
          layout.classify(0, 1000, seen::add);
          boolean ofA = seen.size() == 3 && seen.stream().allMatch(c -> c.table().equals("db.a"));
          boolean ofB = seen.size() == 1 && seen.get(0).table().equals("db.b");
          if (!ofA && !ofB) {
            mixed.set(seen.toString());
          }
          classifier.onRead("b", "f.parquet", 0, 1000);
        }
      });
      reader.start();
      readers.add(reader);
    }
    for (int swap = 0; swap < 20_000; swap++) {
      classifier.publish(swap % 2 == 0 ? b : a);
    }
    stop.set(true);
    for (Thread reader : readers) {
      reader.join();
    }
    assertThat(mixed.get()).as("a read classified against two indexes").isNull();
  }
}
