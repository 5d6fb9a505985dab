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
