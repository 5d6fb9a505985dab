package io.verglas.cache.block;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class MetadataStoreTest {
  static byte[] parquet(int dataLength, int footerLength, long seed) {
    return io.verglas.cache.TestingParquet.file(dataLength, footerLength, seed);
  }

  /** Serves ranges of {@code file} and records them as "offset+length". */
  static MetadataStore.RangeReader reader(byte[] file, List<String> reads) {
    return (offset, length) -> {
      reads.add(offset + "+" + length);
      return CompletableFuture.completedFuture(Arrays.copyOfRange(file, (int) offset, (int) offset + length));
    };
  }

  static byte[] suffix(byte[] file, int n) {
    return Arrays.copyOfRange(file, file.length - n, file.length);
  }

  @Test
  void aSmallFooterCostsOneProbe() {
    MetadataStore store = new MetadataStore(1 << 20, 1 << 19);
    byte[] file = parquet(200_000, 5_000, 1);
    List<String> reads = new ArrayList<>();
    byte[] footer = store.footer("b", "k.parquet", "\"e\"", file.length, reader(file, reads)).join().data();
    assertThat(footer).isEqualTo(suffix(file, 5_008));
    assertThat(reads).containsExactly((file.length - MetadataStore.FOOTER_PROBE_BYTES) + "+" + MetadataStore.FOOTER_PROBE_BYTES);
    assertThat(store.footer("b", "k.parquet", "\"e\"", file.length, reader(file, reads)).join().fromCache()).isTrue();
    long size = file.length;
    assertThat(store.footerCovering("b", "k.parquet", "\"e\"", size, size - 8)).isEqualTo(footer);
    assertThat(store.footerCovering("b", "k.parquet", "\"e\"", size, size - 5_008)).isEqualTo(footer);
    assertThat(store.footerCovering("b", "k.parquet", "\"e\"", size, size - 5_009)).isNull(); // column data
    assertThat(store.footerCovering("b", "k.parquet", "\"other\"", size, size - 8)).isNull();
    assertThat(store.hits()).isEqualTo(3);
    assertThat(reads).hasSize(1);
  }

  @Test
  void aFileWithoutAFooterIsProbedOnce() {
    MetadataStore store = new MetadataStore(1 << 20, 1 << 19);
    byte[] notParquet = new byte[100_000];
    List<String> reads = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      assertThat(store.footer("b", "x.parquet", "\"e\"", notParquet.length, reader(notParquet, reads)).join().data()).isEmpty();
    }
    assertThat(reads).hasSize(1);
    assertThat(store.purge(k -> true)).isZero();
    store.footer("b", "x.parquet", "\"e\"", notParquet.length, reader(notParquet, reads)).join();
    assertThat(reads).hasSize(2); // a purge forgets negative results too
  }

  @Test
  void aLargeFooterCostsOneMoreExactRead() {
    MetadataStore store = new MetadataStore(1 << 20, 1 << 19);
    byte[] file = parquet(300_000, 100_000, 2);
    List<String> reads = new ArrayList<>();
    byte[] footer = store.footer("b", "k", "\"e\"", file.length, reader(file, reads)).join().data();
    assertThat(footer).isEqualTo(suffix(file, 100_008));
    int probe = MetadataStore.FOOTER_PROBE_BYTES;
    assertThat(reads).containsExactly((file.length - probe) + "+" + probe,
        (file.length - 100_008) + "+" + (100_008 - probe));
  }

  @Test
  void filesWithoutATrailerOrWithAnOversizedFooterAreNotStored() {
    MetadataStore store = new MetadataStore(1 << 20, 50_000);
    byte[] notParquet = new byte[1000];
    assertThat(store.footer("b", "x", "\"e\"", notParquet.length, reader(notParquet, new ArrayList<>())).join().data()).isEmpty();
    byte[] big = parquet(10, 60_000, 3);
    assertThat(store.footer("b", "y", "\"e\"", big.length, reader(big, new ArrayList<>())).join().data()).isEmpty();
    byte[] lying = parquet(10, 10, 4);
    lying[lying.length - 5] = 0x7F; // footer length beyond the file
    assertThat(store.footer("b", "z", "\"e\"", lying.length, reader(lying, new ArrayList<>())).join().data()).isEmpty();
    assertThat(store.entries()).isZero();
    byte[] tiny = parquet(0, 0, 5);
    assertThat(store.footer("b", "t", "\"e\"", tiny.length, reader(tiny, new ArrayList<>())).join().data()).hasSize(8);
  }

  @Test
  void wholeObjectsAndTheirLimit() {
    MetadataStore store = new MetadataStore(1000, 400);
    byte[] manifest = new byte[300];
    List<String> reads = new ArrayList<>();
    assertThat(store.object("b", "m.avro", "\"e\"", 300, reader(manifest, reads)).join().fromCache()).isFalse();
    assertThat(store.object("b", "m.avro", "\"e\"", 300, reader(manifest, reads)).join().fromCache()).isTrue();
    assertThat(reads).containsExactly("0+300");
    assertThatThrownBy(() -> store.object("b", "big", "\"e\"", 401, reader(new byte[401], reads)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("401");
    assertThatThrownBy(() -> new MetadataStore(100, 101)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("101");
  }

  @Test
  void concurrentMissesShareOneLoad() {
    MetadataStore store = new MetadataStore(1 << 20, 1 << 19);
    CompletableFuture<byte[]> origin = new CompletableFuture<>();
    int[] loads = {0};
    List<CompletableFuture<MetadataStore.Cached>> waiting = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      waiting.add(store.object("b", "k", "\"e\"", 3, (o, l) -> {
        loads[0]++;
        return origin;
      }));
    }
    origin.complete(new byte[] {1, 2, 3});
    for (var w : waiting) {
      assertThat(w.join().data()).containsExactly(1, 2, 3);
    }
    assertThat(loads[0]).isEqualTo(1);
  }

  @Property(tries = 100)
  void theCeilingHolds(@ForAll @IntRange(min = 100, max = 5000) int capacity,
      @ForAll @Size(min = 1, max = 100) List<@IntRange(min = 1, max = 2000) Integer> sizes) {
    MetadataStore store = new MetadataStore(capacity, Math.min(capacity, 1000));
    int i = 0;
    for (int size : sizes) {
      int n = i++;
      if (size <= store.maxEntryBytes()) {
        byte[] data = store.object("b", "k" + (n % 13), "\"" + size + "\"", size,
            (o, l) -> CompletableFuture.completedFuture(new byte[l])).join().data();
        assertThat(data).hasSize(size);
      }
      assertThat(store.bytes()).isLessThanOrEqualTo(capacity);
    }
  }
}
