package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.verglas.cache.CacheNode;
import io.verglas.cache.iceberg.ObjectSource;
import io.verglas.cache.iceberg.ReadOnlyFileIO;
import io.verglas.cache.writeback.WriteBackStats;
import io.verglas.catalog.Catalogs;
import io.verglas.store.ObjectStoreEndpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 32's last test: an Iceberg table the materializer commits through erasure-coded
 * write-back on a three-node local stack ({@code --nodes 3 --write-back-prefix shop/}, k=2, m=1,
 * w=3) reads back identically through a surviving node after a fragment node is killed, and,
 * once propagated, identically from the origin's directory alone. Propagation is held back (an
 * hour between passes) until the test runs it, so every table file is still only in fragments
 * when the node dies, and the survivors' caches are purged: the reads after the kill rebuild the
 * files from the two fragments left.
 */
class WriteBackTableITCase {
  private static final int ROWS = 400;

  @RegisterExtension
  final LocalStackExtension local = LocalStackExtension.builder().options(config -> config.nodes(3)
      .writeBackPrefixes(List.of("shop/")).writeBackCode(code -> code.propagationInterval(Duration.ofHours(1))))
      .build();

  @Test
  void aTableWrittenThroughWriteBackReadsBackIdenticallyAfterANodeKillAndFromTheOrigin() throws Exception {
    EndpointsFile endpoints = local.stack().endpoints();
    TestingOrders.push(endpoints, 0, ROWS / 2);
    TestingOrders.push(endpoints, ROWS / 2, ROWS / 2);
    Catalog writerCatalog = Catalogs.load(endpoints.catalogName(), endpoints.catalogProperties());
    assertThat(TestingOrders.awaitRows(writerCatalog, ROWS)).as("committed by the materializer").isEqualTo(ROWS);

    Table committed = writerCatalog.loadTable(TestingOrders.ORDERS);
    List<String> tableFiles = tableFiles(committed);
    assertThat(tableFiles).as("the table's metadata, manifest list and data files").hasSizeGreaterThan(2);
    assertThat(tableFiles).as("acknowledged from fragments, not on the origin yet")
        .noneMatch(location -> Files.exists(originFile(location)));
    JsonNode writeBack = LocalClusterITCase.stats(endpoints).path("writeBack");
    assertThat(writeBack.path("acknowledged").asLong()).as("PUTs acknowledged from fragments").isPositive();
    assertThat(writeBack.path("writtenThrough").asLong()).as("PUTs written through instead").isZero();
    assertThat(writeBack.path("dirtyObjects").asLong()).as("unpropagated changes").isGreaterThanOrEqualTo(
        tableFiles.size());

    List<CacheNode> nodes = cacheNodes();
    kill(nodes, 2);
    // the survivors forget the blocks they cached: what the reader gets now is rebuilt from fragments
    nodes.subList(0, 2).forEach(node -> node.purge(endpoints.bucket(), "shop/"));
    try (ReadingCatalog survivor = new ReadingCatalog(endpoints, nodes.get(1).endpoint())) {
      assertThat(rows(survivor.catalog.loadTable(TestingOrders.ORDERS))).as("read through node 2 of 3 after node 3 died")
          .isEqualTo(expectedRows());
    }

    WriteBackStats drained = propagate(nodes.get(0));
    assertThat(drained.dirtyObjects()).isZero();
    assertThat(drained.propagated()).isGreaterThanOrEqualTo(tableFiles.size());
    assertThat(tableFiles).as("on the origin").allMatch(location -> Files.exists(originFile(location)));
    String metadata = ((HasTableOperations) committed).operations().current().metadataFileLocation();
    Table fromOrigin = new BaseTable(new StaticTableOperations(metadata, new ReadOnlyFileIO(originDirectory())), "origin");
    assertThat(rows(fromOrigin)).as("read from the origin's directory alone").isEqualTo(expectedRows());
  }

  private static Map<Long, String> expectedRows() {
    return LongStream.range(0, ROWS).boxed().collect(Collectors.toMap(id -> id, id -> "item-" + id,
        (a, b) -> a, TreeMap::new));
  }

  private static Map<Long, String> rows(Table table) throws Exception {
    Map<Long, String> rows = new TreeMap<>();
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record record : records) {
        assertThat(rows.put((Long) record.getField("id"), (String) record.getField("item")))
            .as("id %s read once", record.getField("id")).isNull();
      }
    }
    return rows;
  }

  /** The current metadata file, its manifest list and manifests, and the data and delete files they list. */
  private static List<String> tableFiles(Table table) throws Exception {
    List<String> files = new java.util.ArrayList<>();
    files.add(((HasTableOperations) table).operations().current().metadataFileLocation());
    files.add(table.currentSnapshot().manifestListLocation());
    table.currentSnapshot().allManifests(table.io()).forEach(manifest -> files.add(manifest.path()));
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        files.add(task.file().location());
        task.deletes().forEach(delete -> files.add(delete.location()));
      }
    }
    return files.stream().distinct().toList();
  }

  /** Propagation passes on the coordinator (the stack's jobs write through the first node) until nothing is dirty. */
  private static WriteBackStats propagate(CacheNode coordinator) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (coordinator.writeBack().stats().dirtyObjects() > 0 && System.nanoTime() < deadline) {
      coordinator.writeBack().propagate();
    }
    return coordinator.writeBack().stats();
  }

  /** Halts the node's membership and closes it, as a crash would, and waits for the others to see it gone. */
  private static void kill(List<CacheNode> nodes, int index) throws InterruptedException {
    CacheNode victim = nodes.get(index);
    victim.cluster().halt();
    victim.close();
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    for (int i = 0; i < nodes.size(); i++) {
      CacheNode survivor = nodes.get(i);
      while (i != index && survivor.cluster().view().members().size() != nodes.size() - 1) {
        assertThat(System.nanoTime()).as("node %d sees the kill", i + 1).isLessThan(deadline);
        Thread.sleep(100);
      }
    }
  }

  @SuppressWarnings("unchecked")
  private List<CacheNode> cacheNodes() {
    return (List<CacheNode>) local.stack().components().get("cache_node");
  }

  /** Reads {@code s3://BUCKET/KEY} from the origin's directory, {@code DIR/origin/BUCKET/KEY}: no cache node involved. */
  private ObjectSource originDirectory() {
    return new ObjectSource() {
      @Override
      public long length(String location) {
        try {
          return Files.size(originFile(location));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }

      @Override
      public byte[] read(String location) {
        try {
          return Files.readAllBytes(originFile(location));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    };
  }

  private Path originFile(String location) {
    URI uri = URI.create(location);
    return local.stack().config().originDir().resolve(uri.getHost()).resolve(uri.getPath().substring(1));
  }

  /** The stack's JDBC catalog with its files read through another cache node's S3 endpoint. */
  private static final class ReadingCatalog implements AutoCloseable {
    final Catalog catalog;

    ReadingCatalog(EndpointsFile endpoints, URI node) {
      ObjectStoreEndpoint s3 = new ObjectStoreEndpoint(node, endpoints.region(), endpoints.accessKey(),
          endpoints.secretKey(), endpoints.bucket());
      catalog = Catalogs.load(endpoints.catalogName(),
          Catalogs.jdbc(endpoints.catalogProperties().get("uri"), s3.warehouse(), s3.s3FileIoProperties()));
    }

    @Override
    public void close() throws Exception {
      if (catalog instanceof AutoCloseable closeable) {
        closeable.close();
      }
    }
  }
}
