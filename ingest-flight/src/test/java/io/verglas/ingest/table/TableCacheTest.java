package io.verglas.ingest.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TableCacheTest {
  private static final Duration REFRESH = Duration.ofSeconds(10);
  private static final TableIdentifier ID = TableIdentifier.of("ns", "t");

  private final AtomicLong nanos = new AtomicLong();
  private final Ticker ticker = nanos::get;
  private InMemoryCatalog catalog;
  private TableCache cache;

  @BeforeEach
  void setUp() {
    catalog = new InMemoryCatalog();
    catalog.initialize("test", Map.of());
    catalog.createNamespace(Namespace.of("ns"));
    catalog.createTable(ID, new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));
    // Reloads run on the calling thread, so the test sees their result deterministically.
    cache = new TableCache(catalog, REFRESH, ticker, Runnable::run);
  }

  @Test
  void servesTheLoadedSchemaUntilTheRefreshInterval() {
    assertThat(columns()).isEqualTo(1);
    addColumn();
    nanos.addAndGet(REFRESH.minusSeconds(1).toNanos());
    assertThat(columns()).isEqualTo(1);
  }

  @Test
  void anEntryPastTheIntervalIsReloadedOnUseWithoutTheCallerWaitingForIt() {
    List<Runnable> background = new ArrayList<>();
    cache = new TableCache(catalog, REFRESH, ticker, background::add);
    assertThat(columns()).isEqualTo(1);
    addColumn();
    nanos.addAndGet(REFRESH.plusSeconds(1).toNanos());
    // The use that finds the entry stale gets it at once and leaves the reload to the background
    assertThat(columns()).isEqualTo(1);
    assertThat(background).isNotEmpty(); // the reload (and the cache's own upkeep), not yet run
    List<Runnable> queued = new ArrayList<>(background);
    background.clear();
    queued.forEach(Runnable::run);
    assertThat(columns()).isEqualTo(2);
  }

  @Test
  void reloadSeesAChangeAtOnce() {
    assertThat(columns()).isEqualTo(1);
    addColumn();
    assertThat(cache.reload(ID).schema().columns()).hasSize(2);
    assertThat(columns()).isEqualTo(2);
  }

  @Test
  void aDroppedTableIsGoneOnceItsEntryExpires() {
    assertThat(columns()).isEqualTo(1);
    catalog.dropTable(ID);
    nanos.addAndGet(REFRESH.multipliedBy(TableCache.EXPIRE_AFTER_REFRESHES).plusSeconds(1)
        .toNanos());
    assertThatThrownBy(this::columns).isInstanceOf(NoSuchTableException.class);
  }

  private int columns() {
    return cache.get(ID).schema().columns().size();
  }

  private void addColumn() {
    catalog.loadTable(ID).updateSchema().addColumn("note", Types.StringType.get()).commit();
  }
}
