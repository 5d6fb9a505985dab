package io.verglas.vector;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * Names in the Puffin file: blob types and the properties every index blob carries (library
 * and format versions, metric, dimension, and for the graph its shard number and count).
 */
public final class IndexBlobs {
  /** The graph, in JVector's on-disk format, possibly split into several blobs (shards). */
  public static final String GRAPH_TYPE = "verglas-vamana-v1";
  /** Ordinal → (data file, position), {@link OrdinalMap}'s format. */
  public static final String ORDINALS_TYPE = "verglas-vamana-ordinals-v1";

  public static final String LIBRARY = "library";
  public static final String LIBRARY_VERSION = "library-version";
  public static final String GRAPH_FORMAT_VERSION = "graph-format-version";
  public static final String FORMAT_VERSION = "format-version";
  public static final String METRIC = "metric";
  public static final String DIMENSION = "dimension";
  public static final String COUNT = "count";
  public static final String SHARD = "shard";
  public static final String SHARDS = "shards";
  public static final String MAX_DEGREE = "max-degree";
  public static final String BEAM_WIDTH = "beam-width";
  public static final String HIERARCHY = "hierarchy";
  /** {@code full} or {@code incremental}; absent on blobs written before incremental builds. */
  public static final String BUILD = "build";
  /** Why a full build was not incremental. */
  public static final String BUILD_REASON = "build-reason";
  /** The snapshot whose index an incremental build extended. */
  public static final String BASE_SNAPSHOT_ID = "base-snapshot-id";
  /** Rows added plus rows removed since the last full build of this lineage of indexes. */
  public static final String CHANGED_SINCE_FULL = "changed-since-full";
  public static final String BUILD_FULL = "full";
  public static final String BUILD_INCREMENTAL = "incremental";

  /** Our version of the blob layout (graph shards plus ordinal map). */
  public static final int FORMAT = 1;
  /** Puffin caps a blob at 2 GiB (one byte[]): graphs above this are split. */
  public static final long MAX_SHARD_BYTES = Integer.MAX_VALUE - 64;

  private static final String JVECTOR_VERSION = readJvectorVersion();

  private IndexBlobs() {}

  public static String jvectorVersion() {
    return JVECTOR_VERSION;
  }

  private static String readJvectorVersion() {
    try (InputStream in = IndexBlobs.class.getResourceAsStream(
        "/META-INF/maven/io.github.jbellis/jvector-base/pom.properties")) {
      if (in == null) {
        return "unknown";
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version", "unknown");
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read JVector's version", e);
    }
  }
}
