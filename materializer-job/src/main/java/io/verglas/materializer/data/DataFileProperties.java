package io.verglas.materializer.data;

import io.verglas.table.PrimaryKeys;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;

/**
 * The Parquet settings the writer's data files get beyond the table's own.
 *
 * <p>Compression level: the writer's files hold a checkpoint's rows each and are rewritten by
 * compaction, which writes with the table's settings; until then they are read little. So where
 * the table names no level, they are compressed at {@link #ZSTD_LEVEL} (Parquet's default for
 * zstd is 3): zstd was a third of the data-writer thread's CPU at level 3 (profile, 2M upserts),
 * and level 1 is what Paimon's writers use by default. A level set on the table wins, and other
 * codecs keep their own defaults.
 *
 * <p>Bloom filters: the primary key's columns get Parquet bloom filters (what a key lookup prunes
 * row groups by) unless the table says otherwise. Tables created through Verglas carry that as
 * table properties already ({@link PrimaryKeys#bloomFilterProperties}); this covers tables made
 * before, or by other means.
 */
final class DataFileProperties {
  /** The zstd level of the writer's data files where the table sets none. */
  static final String ZSTD_LEVEL = "1";

  private DataFileProperties() {}

  /** The writer properties for a table with {@code tableProperties} and {@code schema}. */
  static Map<String, String> of(Map<String, String> tableProperties, Schema schema) {
    Map<String, String> properties = new LinkedHashMap<>(compression(tableProperties));
    PrimaryKeys.bloomFilterProperties(schema).forEach((key, value) -> {
      if (!tableProperties.containsKey(key)) {
        properties.put(key, value);
      }
    });
    return properties;
  }

  /**
   * The bloom filter sizes of a file whose {@code rows} are known when its writer opens (-1:
   * unknown): each enabled column's filter is sized for that many distinct values where the
   * table sets none, instead of Parquet's largest size (1 MB by default), which every file of a
   * few rows then held in memory and wrote out.
   */
  static Map<String, String> bloomFilterRows(Map<String, String> writerProperties,
      Map<String, String> tableProperties, long rows) {
    if (rows < 0) {
      return Map.of();
    }
    Map<String, String> sizes = new LinkedHashMap<>();
    Map<String, String> all = new LinkedHashMap<>(tableProperties);
    all.putAll(writerProperties);
    all.forEach((key, value) -> {
      if (key.startsWith(TableProperties.PARQUET_BLOOM_FILTER_COLUMN_ENABLED_PREFIX)
          && Boolean.parseBoolean(value)) {
        String ndv = TableProperties.PARQUET_BLOOM_FILTER_COLUMN_NDV_PREFIX + key.substring(
            TableProperties.PARQUET_BLOOM_FILTER_COLUMN_ENABLED_PREFIX.length());
        if (!all.containsKey(ndv)) {
          sizes.put(ndv, Long.toString(Math.max(1, rows)));
        }
      }
    });
    return sizes;
  }

  private static Map<String, String> compression(Map<String, String> tableProperties) {
    String codec = tableProperties.getOrDefault(TableProperties.PARQUET_COMPRESSION,
        TableProperties.PARQUET_COMPRESSION_DEFAULT);
    if (!"zstd".equalsIgnoreCase(codec)
        || tableProperties.containsKey(TableProperties.PARQUET_COMPRESSION_LEVEL)) {
      return Map.of();
    }
    return Map.of(TableProperties.PARQUET_COMPRESSION_LEVEL, ZSTD_LEVEL);
  }
}
