package io.verglas.cli.cachenode;

import io.verglas.cache.writeback.WriteBackConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The write-back flags of {@code verglas cache-node}: the keys whose PUTs are buffered, where
 * their fragments and journal live, the code ({@code k}, {@code m}, {@code w}) and the fragments'
 * disk ceiling. {@link #config} checks them together and names the flags in its errors.
 */
public final class WriteBackFlags {
  @Option(names = "--write-back-prefix", paramLabel = "PREFIX", description = "Buffer PUTs of keys of the "
      + "bucket starting with PREFIX as erasure-coded fragments and acknowledge them before they reach the "
      + "origin (repeatable; \"\" for every key; default: none, every PUT goes through). The fragments stay on "
      + "this node's disk: a buffered write survives a restart, not the loss of that disk")
  List<String> prefixes = new ArrayList<>();

  @Option(names = "--write-back-dir", paramLabel = "WRITE_BACK_DIR", description = "Where buffered writes' fragments and journal live "
      + "(default: cache-node-writeback)")
  Path directory = Path.of("cache-node-writeback");

  @Option(names = "--write-back-data-fragments", paramLabel = "K", description = "k: the data fragments a "
      + "buffered write is cut into; any k of its k+m fragments rebuild it (default: "
      + WriteBackConfig.DEFAULT_DATA_FRAGMENTS + ")")
  Integer dataFragments;

  @Option(names = "--write-back-parity-fragments", paramLabel = "M", description = "m: the parity fragments "
      + "of a buffered write (default: " + WriteBackConfig.DEFAULT_PARITY_FRAGMENTS + ")")
  Integer parityFragments;

  @Option(names = "--write-back-ack-fragments", paramLabel = "W", description = "w: the fragments fsynced "
      + "before a PUT is acknowledged, k <= w <= k+m (default: k+m)")
  Integer ackFragments;

  @Option(names = "--write-back-max-bytes", paramLabel = "BYTES", description = "The most disk the buffered "
      + "writes' fragments may take; a PUT whose fragments do not fit goes through to the origin (default: "
      + WriteBackConfig.DEFAULT_FRAGMENT_CEILING_BYTES + ")")
  Long maxBytes;

  /**
   * The write-back settings for {@code bucket}, or null when no prefix is given (write-back off).
   *
   * @throws IllegalArgumentException naming the flags, for values out of range, {@code w}
   *     outside {@code k..k+m}, or a code given without a prefix
   */
  public WriteBackConfig config(String bucket) {
    if (prefixes.isEmpty()) {
      List<String> given = code().entrySet().stream().filter(e -> e.getValue() != null).map(Map.Entry::getKey)
          .toList();
      if (!given.isEmpty()) {
        throw new IllegalArgumentException("Cannot use " + String.join(", ", given)
            + " without --write-back-prefix: write-back is off");
      }
      return null;
    }
    try {
      WriteBackConfig.Builder config = WriteBackConfig.builder().directory(directory).localFragmentStores(true);
      if (dataFragments != null) {
        config.dataFragments(dataFragments);
      }
      if (parityFragments != null) {
        config.parityFragments(parityFragments);
      }
      if (ackFragments != null) {
        config.ackFragments(ackFragments);
      }
      if (maxBytes != null) {
        config.fragmentCeilingBytes(maxBytes);
      }
      prefixes.forEach(prefix -> config.enable(bucket, prefix));
      return config.build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Invalid write-back flags (" + String.join(", ", code().keySet())
          + "): " + e.getMessage(), e);
    }
  }

  private Map<String, Object> code() {
    Map<String, Object> flags = new LinkedHashMap<>();
    flags.put("--write-back-data-fragments", dataFragments);
    flags.put("--write-back-parity-fragments", parityFragments);
    flags.put("--write-back-ack-fragments", ackFragments);
    flags.put("--write-back-max-bytes", maxBytes);
    return flags;
  }

  /** How the node's banner describes it. */
  String describe(WriteBackConfig config) {
    return prefixes + " in " + directory + ", k=" + config.geometry().dataFragments() + " m="
        + config.geometry().parityFragments() + " w=" + config.ackFragments() + ", at most "
        + config.fragmentCeilingBytes() + " bytes of fragments";
  }
}
