package io.verglas.ingest.wal;

import io.verglas.clock.HybridLogicalClock;
import io.verglas.wal.CorruptSegmentException;
import io.verglas.wal.StreamHighWater;
import io.verglas.wal.WalLayout;
import io.verglas.wal.WalSegmentCodec;
import io.verglas.wal.WalSegmentHeader;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a (re)started writer continues its stream: after the highest existing segment and after
 * the stream's high-water mark (committed segments are deleted, but never before the mark covers
 * them; see {@link io.verglas.wal.StreamHighWater}), with its clock advanced past the last
 * segment's stamps, so sequence numbers and clock stamps keep rising across restarts even if
 * the wall clock stepped back.
 */
public final class StreamRecovery {
  /** The sequence number of a stream's first segment. */
  public static final long FIRST_SEQUENCE = 1;
  private static final Logger LOG = LoggerFactory.getLogger(StreamRecovery.class);

  private StreamRecovery() {}

  /** Lists the stream and returns the sequence number its next segment gets. */
  public static long nextSequence(SegmentStore store, WalLayout layout, String streamId,
      HybridLogicalClock clock) {
    long highest = -1;
    String highestKey = null;
    for (String key : store.list(layout.streamPrefix(streamId))) {
      Optional<WalLayout.SegmentName> name = layout.parse(key);
      if (name.isPresent() && name.get().streamId().equals(streamId)
          && name.get().sequence() > highest) {
        highest = name.get().sequence();
        highestKey = key;
      }
    }
    long mark = store.get(layout.highWaterKey(streamId)).map(StreamHighWater::decode).orElse(-1L);
    if (highestKey != null) {
      observeClock(store, highestKey, clock);
    }
    return Math.max(FIRST_SEQUENCE, Math.max(highest, mark) + 1);
  }

  private static void observeClock(SegmentStore store, String key, HybridLogicalClock clock) {
    try {
      Optional<byte[]> bytes = store.get(key);
      if (bytes.isPresent()) {
        WalSegmentHeader header = WalSegmentCodec.decode(bytes.get()).header();
        clock.observe(header.hlcMax());
      }
    } catch (CorruptSegmentException e) {
      // The sequence still continues after it; only the clock hint is lost.
      LOG.warn("Cannot read the clock of WAL segment {}: {}", key, e.getMessage());
    }
  }
}
