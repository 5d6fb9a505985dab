package io.verglas.cache.iceberg;

import java.util.Locale;

/**
 * Recognizes Iceberg's files by their object key.
 *
 * <p>Iceberg writes every data, delete, manifest, manifest-list, statistics and table-metadata
 * file once under a fresh name and never rewrites it; only pointers (a catalog entry, or the
 * {@code version-hint.text} of Hadoop tables) change. So these keys are immutable:
 * <ul>
 *   <li>{@code .parquet}, {@code .avro} and {@code .orc} files below a {@code data/}
 *       directory: data and delete files (partition directories may lie between);
 *   <li>{@code .puffin} files: deletion vectors and statistics;
 *   <li>{@code .avro} files below a {@code metadata/} directory, and {@code snap-...avro}
 *       anywhere: manifests and manifest lists;
 *   <li>{@code ...metadata.json}: table metadata (also the gzip form {@code .gz.metadata.json}).
 * </ul>
 * A key may also start with {@code data/} or {@code metadata/} (a table at the bucket root).
 * Everything else, {@code version-hint.text} included, is mutable. Matching is case-insensitive
 * on the extension only.
 */
public final class IcebergPaths {
  private IcebergPaths() {}

  public static boolean isImmutable(String key) {
    String name = fileName(key);
    String lower = name.toLowerCase(Locale.ROOT);
    if (lower.endsWith(".metadata.json") || lower.endsWith(".puffin")) {
      return true;
    }
    if (lower.endsWith(".avro") && (lower.startsWith("snap-") || inDirectory(key, "metadata"))) {
      return true;
    }
    return (lower.endsWith(".parquet") || lower.endsWith(".avro") || lower.endsWith(".orc"))
        && inDirectory(key, "data");
  }

  /** Table metadata, manifest lists and manifests: small, read by every query planner. */
  public static boolean isMetadata(String key) {
    String lower = fileName(key).toLowerCase(Locale.ROOT);
    return lower.endsWith(".metadata.json")
        || (lower.endsWith(".avro") && (lower.startsWith("snap-") || inDirectory(key, "metadata")));
  }

  /** A Parquet file, whose footer is worth keeping apart from its data. */
  public static boolean isParquet(String key) {
    return fileName(key).toLowerCase(Locale.ROOT).endsWith(".parquet");
  }

  private static String fileName(String key) {
    return key.substring(key.lastIndexOf('/') + 1);
  }

  /** True if some directory of the key (not the file name) is {@code dir}. */
  private static boolean inDirectory(String key, String dir) {
    int end = key.lastIndexOf('/');
    if (end < 0) {
      return false;
    }
    String dirs = "/" + key.substring(0, end + 1);
    return dirs.contains("/" + dir + "/");
  }
}
