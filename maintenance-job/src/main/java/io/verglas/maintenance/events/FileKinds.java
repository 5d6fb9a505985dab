package io.verglas.maintenance.events;

import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

/**
 * Names the kind of a deleted file for the counts of a maintenance event.
 *
 * <p>Design: the kind is read from the name Iceberg's writers give each file ({@code snap-*.avro}
 * manifest lists, other {@code .avro} manifests, {@code *.metadata.json}, {@code .puffin}
 * deletion vectors and statistics, data files by format). Deleted files can no longer be opened
 * to ask, and their manifests may be gone too; an unrecognized name counts as {@code other}.
 */
final class FileKinds {
  static final String DATA = "data";
  static final String PUFFIN = "puffin";
  static final String MANIFEST = "manifest";
  static final String MANIFEST_LIST = "manifest-list";
  static final String METADATA = "metadata";
  static final String OTHER = "other";

  private FileKinds() {}

  static Map<String, Long> count(Collection<String> locations) {
    Map<String, Long> counts = new TreeMap<>();
    locations.forEach(location -> counts.merge(kind(location), 1L, Long::sum));
    return counts;
  }

  static String kind(String location) {
    String name = location.substring(location.lastIndexOf('/') + 1);
    if (name.endsWith(".metadata.json") || name.endsWith(".metadata.json.gz")) {
      return METADATA;
    }
    if (name.endsWith(".avro")) {
      return name.startsWith("snap-") ? MANIFEST_LIST : MANIFEST;
    }
    if (name.endsWith(".puffin")) {
      return PUFFIN;
    }
    if (name.endsWith(".parquet") || name.endsWith(".orc")) {
      return DATA;
    }
    return OTHER;
  }
}
