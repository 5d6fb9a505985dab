package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.CacheNode;
import io.verglas.cache.TestingCacheNode;
import io.verglas.cache.parquet.ParquetFooter;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * Heat is classified from the bytes a node delivered, not the range a client asked for: a real
 * node following a real change feed, one data file of an Iceberg table (columns id, part, a, b,
 * c; each string column chunk about 4 MB, several 1 MiB blocks) walked by it, and reads of that
 * file with the AWS SDK over Apache's HTTP client (how Iceberg's S3FileIO reads).
 *
 * <p>A reader of {@code bytes=N-} that stops after the chunk it wanted and aborts heats that
 * chunk's column only (before, every column after it): the SDK directly, and Iceberg's own
 * S3FileIO stream after a seek (S3InputStream opens {@code bytes=N-}; the Parquet reader of
 * Iceberg 1.11 itself reads column chunks with exact vectored ranges), whose compaction then
 * prefetches that column's chunk and not the ones after it. The socket buffers of the cut (up
 * to 4 MiB here) are smaller than a chunk. Exact ranges, and an open-ended range read to the
 * end, heat what they cover, as before.
 */
class DeliveredHeatITCase {
  private static final TestingWorkingSet DATA = new TestingWorkingSet(40_000, 100);
  private static final TableIdentifier TABLE = TableIdentifier.of("db", "sales");

  @TempDir
  Path dir;

  private TestingFeedServer feed;
  private TestingCacheNode cache;
  private TestingTables tables;
  private String location;
  private String key;
  private Map<String, ParquetFooter.ColumnChunk> chunks;

  @BeforeEach
  void oneWalkedDataFile() {
    feed = new TestingFeedServer(dir.resolve("feed"), null);
    cache = new TestingCacheNode(dir.resolve("origin"), o -> o, b -> b
        .blockSize(CacheNode.MIB).dramCapacityBytes(256L * CacheNode.MIB).adminPort(0)
        .awareness(AwarenessConfig.builder().feedUri(feed.uri())
            .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(500))
            .prefetch(true)
            .build()));
    Eventually.await("the watcher following the feed", () -> cache.node.stats().awareness().feedConnected());
    tables = new TestingTables(dir.resolve("catalog.db"), cache.node.endpoint());
    Table table = TestingWorkingSet.create(tables.catalog(), "db", "sales");
    DATA.append(table, 1, 1);
    feed.publish(TestingTables.commitEvent(table));
    awaitWalks(1);
    location = table.newScan().planFiles().iterator().next().file().location();
    key = key(location);
    chunks = chunks(cache.s3, key);
    assertThat(chunks.get("b").length()).as("a chunk outweighs the socket buffers").isGreaterThan(3L << 20);
  }

  @AfterEach
  void close() {
    tables.close();
    cache.close();
    feed.close();
  }

  @Test
  void anOpenEndedReadStoppedAfterOneChunkHeatsOnlyThatColumn() throws IOException {
    ParquetFooter.ColumnChunk a = chunks.get("a");
    try (S3Client client = cache.apacheClient();
        ResponseInputStream<GetObjectResponse> in = client.getObject(get("bytes=" + a.start() + "-"))) {
      assertThat(in.readNBytes((int) a.length())).hasSize((int) a.length());
      in.abort(); // as S3InputStream closes a stream it has not read to the end (a reset)
    }
    assertThat(hotColumnsOnceHeated("a")).containsExactly("a");
  }

  @Test
  void icebergReadingOneColumnHeatsItAndTheCompactionPrefetchesOnlyIt() throws IOException {
    ParquetFooter.ColumnChunk a = chunks.get("a");
    Catalog client = tables.freshCatalog(cache.node.endpoint());
    try (SeekableInputStream in = client.loadTable(TABLE).io().newInputFile(location).newStream()) {
      in.seek(a.start()); // S3InputStream: the next read opens bytes=<a.start>-
      assertThat(in.readNBytes((int) a.length())).hasSize((int) a.length());
    } finally {
      TestingTables.closeQuietly(client);
    }
    assertThat(hotColumnsOnceHeated("a")).containsExactly("a");

    Table table = tables.catalog().loadTable(TABLE);
    DATA.compact(table, 1, 1);
    feed.publish(TestingTables.commitEvent(table));
    awaitWalks(2);
    DataFile replacement = table.currentSnapshot().addedDataFiles(table.io()).iterator().next();
    Map<String, ParquetFooter.ColumnChunk> replaced = chunks(cache.s3, key(replacement.location()));
    assertThat(cache.node.stats().awareness().prefetchBytes()).as("the hot column's chunk, not the columns after it")
        .isGreaterThanOrEqualTo(replaced.get("a").length())
        .isLessThan(replaced.get("a").length() + replaced.get("b").length());
  }

  @Test
  void anOpenEndedReadToTheEndHeatsEveryColumnAfterItsStart() {
    readFully("bytes=" + chunks.get("b").start() + "-");
    assertThat(hotColumnsOnceHeated("c")).containsExactly("b", "c");
  }

  @Test
  void exactRangesHeatTheColumnsTheyCover() {
    readFully(exact(chunks.get("a"), chunks.get("a")), exact(chunks.get("c"), chunks.get("c")));
    assertThat(hotColumnsOnceHeated("c")).containsExactly("a", "c");
  }

  @Test
  void anExactRangeOverSeveralChunksHeatsThemAll() {
    readFully(exact(chunks.get("part"), chunks.get("b")));
    assertThat(hotColumnsOnceHeated("b")).containsExactly("a", "b", "part");
  }

  /** The exact range from the start of chunk {@code first} to the end of chunk {@code last}. */
  private static String exact(ParquetFooter.ColumnChunk first, ParquetFooter.ColumnChunk last) {
    return "bytes=" + first.start() + "-" + (last.end() - 1);
  }

  /** Reads each range to its end, with the AWS SDK over Apache's HTTP client. */
  private void readFully(String... ranges) {
    try (S3Client client = cache.apacheClient()) {
      for (String range : ranges) {
        try (InputStream in = client.getObject(get(range))) {
          in.transferTo(java.io.OutputStream.nullOutputStream());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void awaitWalks(long events) {
    Eventually.await(events + " walks", () -> {
      var a = cache.node.stats().awareness();
      return a.eventsHandled() >= events && a.walksPending() == 0 && a.walksCompleted() >= events;
    }, () -> cache.node.stats().toJson());
  }

  private static String key(String location) {
    return URI.create(location).getPath().substring(1);
  }

  private GetObjectRequest get(String range) {
    return GetObjectRequest.builder().bucket(TestingCacheNode.BUCKET).key(key).range(range).build();
  }

  /** The hot columns of the table, once {@code column} is among them. */
  private Set<String> hotColumnsOnceHeated(String column) {
    Eventually.await(column + " heated", () -> hotColumns().contains(column),
        () -> cache.node.heat("db.sales", 10).toString());
    return hotColumns();
  }

  @SuppressWarnings("unchecked")
  private Set<String> hotColumns() {
    Set<String> columns = new TreeSet<>();
    for (Map<String, Object> partition : (List<Map<String, Object>>) cache.node.heat("db.sales", 10).get("partitions")) {
      for (Map<String, Object> column : (List<Map<String, Object>>) partition.get("columns")) {
        columns.add((String) column.get("column"));
      }
    }
    return columns;
  }

  /** The file's column chunks by column, from its footer (suffix reads of the footer alone: no column heat). */
  private static Map<String, ParquetFooter.ColumnChunk> chunks(S3Client s3, String key) {
    try {
      int suffix = ParquetFooter.suffixLength(suffix(s3, key, 8));
      ParquetFooter footer = ParquetFooter.parseSuffix(suffix(s3, key, suffix));
      Map<String, ParquetFooter.ColumnChunk> byColumn = new HashMap<>();
      assertThat(footer.rowGroups()).hasSize(1);
      footer.rowGroups().get(0).columns().forEach(chunk -> byColumn.put(chunk.path(), chunk));
      return byColumn;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] suffix(S3Client s3, String key, int length) throws IOException {
    try (InputStream in = s3.getObject(GetObjectRequest.builder().bucket(TestingCacheNode.BUCKET).key(key)
        .range("bytes=-" + length).build())) {
      return in.readAllBytes();
    }
  }
}
