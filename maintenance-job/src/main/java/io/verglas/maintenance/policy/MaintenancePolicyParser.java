package io.verglas.maintenance.policy;

import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Reads a {@link MaintenancePolicy} from table properties. Every key is optional; an absent key
 * takes the default below, a present key with a bad value fails with the key and the value.
 *
 * <pre>
 *   verglas.maintenance.enabled                      true
 *   verglas.maintenance.target-file-size-bytes       134217728 (128 MiB); falls back to
 *                                                    Iceberg's write.target-file-size-bytes
 *   verglas.maintenance.min-file-size-bytes          3/4 of the target
 *   verglas.maintenance.max-file-size-bytes          9/5 of the target
 *   verglas.maintenance.max-group-bytes              1073741824 (1 GiB) input per rewrite
 *   verglas.maintenance.delete-file-count-threshold  8    delete files in a partition
 *   verglas.maintenance.delete-ratio-threshold       0.2  deleted rows / rows of one file
 *   verglas.maintenance.small-file-count-threshold   8    small data files in a partition
 *   verglas.maintenance.manifest-count-threshold     16   small data manifests (below 8 MiB)
 *   verglas.maintenance.snapshot-max-age-ms          86400000 (1 day)
 *   verglas.maintenance.snapshot-min-count           10
 *   verglas.maintenance.orphan-safety-age-ms         259200000 (3 days)
 *   verglas.maintenance.rewrite-pause-ms             10000
 * </pre>
 */
public final class MaintenancePolicyParser {
  public static final String PREFIX = "verglas.maintenance.";
  public static final String ENABLED = PREFIX + "enabled";
  public static final String TARGET_FILE_SIZE = PREFIX + "target-file-size-bytes";
  public static final String ICEBERG_TARGET_FILE_SIZE = "write.target-file-size-bytes";
  public static final String MIN_FILE_SIZE = PREFIX + "min-file-size-bytes";
  public static final String MAX_FILE_SIZE = PREFIX + "max-file-size-bytes";
  public static final String MAX_GROUP_BYTES = PREFIX + "max-group-bytes";
  public static final String DELETE_FILE_COUNT = PREFIX + "delete-file-count-threshold";
  public static final String DELETE_RATIO = PREFIX + "delete-ratio-threshold";
  public static final String SMALL_FILE_COUNT = PREFIX + "small-file-count-threshold";
  public static final String MANIFEST_COUNT = PREFIX + "manifest-count-threshold";
  public static final String SNAPSHOT_MAX_AGE = PREFIX + "snapshot-max-age-ms";
  public static final String SNAPSHOT_MIN_COUNT = PREFIX + "snapshot-min-count";
  public static final String ORPHAN_SAFETY_AGE = PREFIX + "orphan-safety-age-ms";
  public static final String REWRITE_PAUSE = PREFIX + "rewrite-pause-ms";

  public static final long TARGET_FILE_SIZE_DEFAULT = 128L << 20;
  public static final long MAX_GROUP_BYTES_DEFAULT = 1L << 30;
  public static final int DELETE_FILE_COUNT_DEFAULT = 8;
  public static final double DELETE_RATIO_DEFAULT = 0.2;
  public static final int SMALL_FILE_COUNT_DEFAULT = 8;
  public static final int MANIFEST_COUNT_DEFAULT = 16;
  public static final Duration SNAPSHOT_MAX_AGE_DEFAULT = Duration.ofDays(1);
  public static final int SNAPSHOT_MIN_COUNT_DEFAULT = 10;
  public static final Duration ORPHAN_SAFETY_AGE_DEFAULT = Duration.ofDays(3);
  public static final Duration REWRITE_PAUSE_DEFAULT = Duration.ofSeconds(10);

  private MaintenancePolicyParser() {}

  /** The policy the properties describe; throws {@link IllegalArgumentException} naming the key. */
  public static MaintenancePolicy fromProperties(Map<String, String> properties) {
    MaintenancePolicy.Builder b = MaintenancePolicy.builder();
    String target = properties.containsKey(TARGET_FILE_SIZE)
        ? TARGET_FILE_SIZE : ICEBERG_TARGET_FILE_SIZE;
    apply(properties, ENABLED, v -> b.enabled(parseBoolean(v)));
    apply(properties, target, v -> b.targetFileSizeBytes(Long.parseLong(v)));
    apply(properties, MIN_FILE_SIZE, v -> b.minFileSizeBytes(Long.parseLong(v)));
    apply(properties, MAX_FILE_SIZE, v -> b.maxFileSizeBytes(Long.parseLong(v)));
    apply(properties, MAX_GROUP_BYTES, v -> b.maxGroupBytes(Long.parseLong(v)));
    apply(properties, DELETE_FILE_COUNT, v -> b.deleteFileCountThreshold(Integer.parseInt(v)));
    apply(properties, DELETE_RATIO, v -> b.deleteRatioThreshold(Double.parseDouble(v)));
    apply(properties, SMALL_FILE_COUNT, v -> b.smallFileCountThreshold(Integer.parseInt(v)));
    apply(properties, MANIFEST_COUNT, v -> b.manifestCountThreshold(Integer.parseInt(v)));
    apply(properties, SNAPSHOT_MAX_AGE, v -> b.snapshotMaxAge(millis(v)));
    apply(properties, SNAPSHOT_MIN_COUNT, v -> b.snapshotMinCount(Integer.parseInt(v)));
    apply(properties, ORPHAN_SAFETY_AGE, v -> b.orphanSafetyAge(millis(v)));
    apply(properties, REWRITE_PAUSE, v -> b.rewritePause(millis(v)));
    try {
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Cannot read maintenance policy: " + e.getMessage(), e);
    }
  }

  private static void apply(Map<String, String> properties, String key, Consumer<String> set) {
    String value = properties.get(key);
    if (value == null) {
      return;
    }
    try {
      set.accept(value.trim());
    } catch (IllegalArgumentException e) { // NumberFormatException included
      throw new IllegalArgumentException(
          "Cannot read maintenance policy: invalid " + key + "=" + value + ": " + e.getMessage(),
          e);
    }
  }

  private static boolean parseBoolean(String value) {
    if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(value);
    }
    throw new IllegalArgumentException("expected true or false");
  }

  private static Duration millis(String value) {
    return Duration.ofMillis(Long.parseLong(value));
  }
}
