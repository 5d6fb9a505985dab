package io.verglas.cache.awareness;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The heat ledger's file in the awareness state directory, so a restarted node (upgraded or
 * crashed) still knows which columns are hot: the first compaction after a restart is
 * prefetched from the heat learnt before it.
 *
 * <p>Design: {@link #save} writes the hottest {@code maxEntries} coordinates with their heat
 * decayed to now and the wall-clock time ({@link HeatFile}), replacing the file atomically
 * ({@link StateFile}); the node saves every {@code heatSaveInterval} and on close, so a crash
 * loses at most one interval of heat. {@link #restore} decays each saved heat by the wall-clock
 * time since the save (none if the clock went back) and adds it to the ledger. Heat is a hint:
 * a missing file restores nothing, and a file that cannot be read (corrupt, another format
 * version, larger than {@link #MAX_FILE_BYTES}) is logged, moved aside and ignored, never fatal.
 */
final class HeatStore {
  static final String FILE_NAME = "heat-ledger.bin";
  /** A larger file is not read (the default cap writes well under 1 MiB). */
  static final long MAX_FILE_BYTES = 256L << 20;
  private static final Logger LOG = LoggerFactory.getLogger(HeatStore.class);

  private final StateFile file;
  private final int maxEntries;
  private final double halfLifeMillis;
  private final LongSupplier wallMillis;

  HeatStore(Path directory, int maxEntries, long halfLifeNanos, LongSupplier wallMillis) {
    if (maxEntries <= 0 || halfLifeNanos <= 0) {
      throw new IllegalArgumentException("Invalid heat store: " + maxEntries + " entries, half-life "
          + halfLifeNanos + " ns (both must be > 0)");
    }
    this.file = new StateFile(directory, FILE_NAME);
    this.maxEntries = maxEntries;
    this.halfLifeMillis = halfLifeNanos / 1e6;
    this.wallMillis = wallMillis;
  }

  /** Adds the saved heat, decayed to now, to {@code ledger}; returns the entries restored. */
  int restore(HeatLedger ledger) {
    Optional<HeatFile.Saved> saved = load();
    if (saved.isEmpty()) {
      return 0;
    }
    long elapsed = Math.max(0, wallMillis.getAsLong() - saved.get().savedAtMillis());
    double factor = Math.pow(0.5, elapsed / halfLifeMillis);
    for (HeatLedger.Heat heat : saved.get().entries()) {
      ledger.restore(heat.at(), heat.heat() * factor);
    }
    LOG.info("Restored {} heat entries saved {} s ago from {}", saved.get().entries().size(),
        elapsed / 1000, file.path());
    return saved.get().entries().size();
  }

  /** Replaces the file with the ledger's hottest entries as of now. */
  void save(HeatLedger ledger) throws IOException {
    file.replace(HeatFile.encode(new HeatFile.Saved(wallMillis.getAsLong(), ledger.hottest(maxEntries))));
  }

  private Optional<HeatFile.Saved> load() {
    try {
      long size = file.size();
      if (size < 0) {
        return Optional.empty();
      }
      if (size > MAX_FILE_BYTES) {
        return unreadable("Cannot read heat file: " + size + " bytes (at most " + MAX_FILE_BYTES + ")");
      }
      Optional<byte[]> bytes = file.read();
      return bytes.isEmpty() ? Optional.empty() : Optional.of(HeatFile.decode(bytes.get()));
    } catch (IllegalArgumentException e) {
      return unreadable(e.getMessage());
    } catch (IOException e) {
      LOG.warn("Cannot read heat file {} (starting without saved heat): {}", file.path(), e.toString());
      return Optional.empty();
    }
  }

  private Optional<HeatFile.Saved> unreadable(String reason) {
    try {
      LOG.warn("{} ({}); moved it to {}, starting without saved heat", reason, file.path(), file.moveAside());
    } catch (IOException e) {
      LOG.warn("{} ({}); starting without saved heat (cannot move it aside: {})", reason, file.path(), e.toString());
    }
    return Optional.empty();
  }
}
