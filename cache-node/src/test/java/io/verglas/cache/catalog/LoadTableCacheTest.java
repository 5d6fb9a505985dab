package io.verglas.cache.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalogProperties.SnapshotMode;
import org.apache.iceberg.rest.responses.LoadTableResponse;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class LoadTableCacheTest {
  private static final TableIdentifier TABLE = TableIdentifier.of("ns", "t");
  private static final LoadTableCache.Key ALL = new LoadTableCache.Key(TABLE, SnapshotMode.ALL);
  private static final LoadTableCache.Key REFS = new LoadTableCache.Key(TABLE, SnapshotMode.REFS);

  private static final TableMetadata METADATA = TableMetadata.newTableMetadata(
      new Schema(Types.NestedField.required(1, "id", Types.LongType.get())),
      PartitionSpec.unpartitioned(), "s3://warehouse/ns/t", Map.of());

  private final AtomicLong nanos = new AtomicLong();
  private final AtomicInteger loads = new AtomicInteger();
  private final LoadTableCache cache = new LoadTableCache(Duration.ofSeconds(5), 10, nanos::get);

  private LoadTableResponse load() {
    loads.incrementAndGet();
    return LoadTableResponse.builder().withTableMetadata(METADATA).build();
  }

  @Test
  void answersFromMemoryUntilTheTtl() {
    LoadTableResponse first = cache.get(ALL, this::load);
    assertThat(cache.get(ALL, this::load)).isSameAs(first);
    assertThat(loads).hasValue(1);
    nanos.addAndGet(Duration.ofSeconds(5).toNanos());
    cache.get(ALL, this::load);
    assertThat(loads).hasValue(2);
    assertThat(cache.hits()).isEqualTo(1);
    assertThat(cache.misses()).isEqualTo(2);
  }

  @Test
  void invalidationForgetsEveryModeOfTheTable() {
    cache.get(ALL, this::load);
    cache.get(REFS, this::load);
    cache.invalidate(TABLE);
    cache.get(ALL, this::load);
    cache.get(REFS, this::load);
    assertThat(loads).hasValue(4);
  }

  @Test
  void aLoadRacingAnInvalidationIsNotStored() {
    cache.get(ALL, () -> {
      cache.invalidate(TABLE);   // a commit lands while the backing catalog is read
      return load();
    });
    cache.get(ALL, this::load);
    assertThat(loads).hasValue(2);
    cache.get(ALL, this::load);
    assertThat(loads).hasValue(2);
  }

  @Test
  void aZeroTtlCachesNothing() {
    LoadTableCache off = new LoadTableCache(Duration.ZERO, 10, nanos::get);
    off.get(ALL, this::load);
    off.get(ALL, this::load);
    assertThat(loads).hasValue(2);
  }
}
