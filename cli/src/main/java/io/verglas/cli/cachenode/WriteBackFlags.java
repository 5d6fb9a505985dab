package io.verglas.cli.cachenode;

import io.verglas.cache.writeback.WriteBackConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Option;

/**
 * The write-back flags of {@code verglas cache-node} and {@code verglas local}: the keys whose
 * PUTs are buffered, the code ({@code k}, {@code m}, {@code w}), the fragments' disk ceiling and
 * the orphan fragments' grace period. Where the fragments and journal live is each command's
 * own. {@link #config} checks them together and names the flags in its errors; {@code verglas
 * local}'s properties file has a {@code local.} key of each name but the prefix's ({@link #settings}).
 */
public final class WriteBackFlags {
  @Option(names = "--write-back-prefix", paramLabel = "PREFIX", description = "Buffer PUTs of keys of the "
      + "bucket starting with PREFIX as erasure-coded fragments and acknowledge them before they reach the "
      + "origin (repeatable; \"\" for every key; default: none, every PUT goes through). One node keeps all "
      + "k+m fragments on its disk (a buffered write survives a restart, not the loss of that disk); in a cache "
      + "cluster each node holds at most one fragment of a write")
  List<String> prefixes = new ArrayList<>();

  @Option(names = "--write-back-data-fragments", paramLabel = "K", description = "k: the data fragments a "
      + "buffered write is cut into; any k of its k+m fragments rebuild it (default: "
      + WriteBackConfig.DEFAULT_DATA_FRAGMENTS + ")")
  Integer dataFragments;

  @Option(names = "--write-back-parity-fragments", paramLabel = "M", description = "m: the parity fragments "
      + "of a buffered write (default: " + WriteBackConfig.DEFAULT_PARITY_FRAGMENTS + ")")
  Integer parityFragments;

  @Option(names = "--write-back-ack-fragments", paramLabel = "W", description = "w: the fragments fsynced "
      + "before a PUT is acknowledged, k <= w <= k+m; in a cluster on w distinct nodes, else the PUT goes "
      + "through to the origin (default: k+m)")
  Integer ackFragments;

  @Option(names = "--write-back-max-bytes", paramLabel = "BYTES", description = "The most disk the buffered "
      + "writes' fragments may take on a node; a PUT whose fragments do not fit goes through to the origin "
      + "(default: " + WriteBackConfig.DEFAULT_FRAGMENT_CEILING_BYTES + ")")
  Long maxBytes;

  @Option(names = "--write-back-orphan-grace-ms", paramLabel = "MILLISECONDS", description = "How old a "
      + "fragment file no buffered write names must be before the node deletes it (after each scrub); far "
      + "above a PUT's staging time, since another node's fragments are committed before its journal record "
      + "arrives (default: " + WriteBackConfig.DEFAULT_ORPHAN_GRACE_MILLIS + ")")
  Long orphanGraceMillis;

  /** The names of the code, ceiling and grace flags (without the dashes), in the order errors list them. */
  private static final List<String> NAMES = List.of("write-back-data-fragments", "write-back-parity-fragments",
      "write-back-ack-fragments", "write-back-max-bytes", "write-back-orphan-grace-ms");

  /** The prefixes given, in order; empty when none. */
  public List<String> prefixes() {
    return List.copyOf(prefixes);
  }

  /**
   * The write-back settings for {@code bucket} with fragments and journal in {@code directory},
   * or null when no prefix is given (write-back off).
   *
   * @param localFragmentStores all {@code k + m} fragments on this node ({@link
   *     WriteBackConfig#localFragmentStores()}): true for a node alone, false in a cluster
   * @throws IllegalArgumentException naming the flags, for values out of range, {@code w}
   *     outside {@code k..k+m}, or a code given without a prefix
   */
  public WriteBackConfig config(String bucket, Path directory, boolean localFragmentStores) {
    if (prefixes.isEmpty()) {
      checkUnset("--write-back-prefix");
      return null;
    }
    return named(() -> {
      WriteBackConfig.Builder config = applyCode(WriteBackConfig.builder().directory(directory)
          .localFragmentStores(localFragmentStores));
      prefixes.forEach(prefix -> config.enable(bucket, prefix));
      return config.build();
    });
  }

  /**
   * The code, ceiling and grace given, applied to a node's write-back settings (the identity when
   * none is given).
   */
  public UnaryOperator<WriteBackConfig.Builder> code() {
    return config -> named(() -> applyCode(config));
  }

  private WriteBackConfig.Builder applyCode(WriteBackConfig.Builder config) {
    settings().values().forEach(setting -> setting.apply(config));
    return config;
  }

  /**
   * Each code, ceiling or grace flag given, by its name without the dashes (the {@code local.}
   * key of the name is the same setting): what {@code verglas local} applies to each of its
   * nodes' write-back settings, over the keys of its properties file.
   */
  public Map<String, UnaryOperator<WriteBackConfig.Builder>> settings() {
    Map<String, UnaryOperator<WriteBackConfig.Builder>> given = new LinkedHashMap<>();
    given(given, NAMES.get(0), dataFragments, WriteBackConfig.Builder::dataFragments);
    given(given, NAMES.get(1), parityFragments, WriteBackConfig.Builder::parityFragments);
    given(given, NAMES.get(2), ackFragments, WriteBackConfig.Builder::ackFragments);
    given(given, NAMES.get(3), maxBytes, WriteBackConfig.Builder::fragmentCeilingBytes);
    given(given, NAMES.get(4), orphanGraceMillis, (c, millis) -> c.orphanGracePeriod(Duration.ofMillis(millis)));
    return given;
  }

  private static <T> void given(Map<String, UnaryOperator<WriteBackConfig.Builder>> given, String name, T value,
      BiFunction<WriteBackConfig.Builder, T, WriteBackConfig.Builder> setter) {
    if (value != null) {
      given.put(name, config -> setter.apply(config, value));
    }
  }

  /** Whether a code, ceiling or grace flag is given. */
  public boolean codeGiven() {
    return !given().isEmpty();
  }

  /** Fails when a code or ceiling flag is given although write-back is off, naming {@code enabling}. */
  public void checkUnset(String enabling) {
    if (codeGiven()) {
      throw new IllegalArgumentException("Cannot use " + String.join(", ", given())
          + " without " + enabling + ": write-back is off");
    }
  }

  private List<String> given() {
    return settings().keySet().stream().map(name -> "--" + name).toList();
  }

  private <T> T named(Supplier<T> build) {
    try {
      return build.get();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Invalid write-back flags (" + String.join(", ",
          NAMES.stream().map(name -> "--" + name).toList()) + "): " + e.getMessage(), e);
    }
  }

  /** How a node's banner describes its settings. */
  public static String describe(WriteBackConfig config) {
    return config.scopes().stream().map(scope -> scope.bucket() + "/" + scope.prefix() + "*").toList()
        + " in " + config.directory() + ", k=" + config.geometry().dataFragments() + " m="
        + config.geometry().parityFragments() + " w=" + config.ackFragments() + ", at most "
        + config.fragmentCeilingBytes() + " bytes of fragments"
        + (config.localFragmentStores() ? " (all on this node)" : " (one per cluster node)");
  }
}
