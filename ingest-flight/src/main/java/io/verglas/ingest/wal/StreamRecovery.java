package io.verglas.ingest.wal;

import io.verglas.clock.HybridLogicalClock;
import io.verglas.wal.CorruptSegmentException;
import io.verglas.wal.StreamHighWater;
import io.verglas.wal.WalLayout;
import io.verglas.wal.WalSegment;
import io.verglas.wal.WalSegmentCodec;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a (re)started writer continues a WAL stream (one lane): after the highest existing
 * segment and after the stream's high-water mark (committed segments are deleted, but never
 * before the mark covers them; see {@link io.verglas.wal.StreamHighWater}), with its clock
 * advanced past the last segment's stamps, so sequence numbers and clock stamps keep rising
 * across restarts even if the wall clock stepped back. The last segment is returned too: it is
 * the only one whose idempotency keys may not be journaled yet (see {@link KeyJournals}).
 */
public final class StreamRecovery {
  /** The sequence number of a stream's first segment. */
  public static final long FIRST_SEQUENCE = 1;
  private static final Logger LOG = LoggerFactory.getLogger(StreamRecovery.class);

  /** Where a lane continues, and its last segment if there is one that could be read. */
  public record LaneStart(long nextSequence, Optional<WalSegment> lastSegment) {}

  private StreamRecovery() {}

  /** Lists the stream and returns the sequence number its next segment gets. */
  public static long nextSequence(SegmentStore store, WalLayout layout, String streamId,
      HybridLogicalClock clock) {
    return recover(store, layout, streamId, clock).nextSequence();
  }

  public static LaneStart recover(SegmentStore store, WalLayout layout, String streamId,
      HybridLogicalClock clock) {
    long highest = highestSequence(store, layout, streamId);
    long mark = store.get(layout.highWaterKey(streamId)).map(StreamHighWater::decode).orElse(-1L);
    Optional<WalSegment> last = Optional.empty();
    if (highest >= 0) {
      last = read(store, layout.segmentKey(streamId, highest));
      last.ifPresent(segment -> clock.observe(segment.header().hlcMax()));
    }
    return new LaneStart(Math.max(FIRST_SEQUENCE, Math.max(highest, mark) + 1), last);
  }

  /** The highest sequence listed under the stream, or -1. */
  static long highestSequence(SegmentStore store, WalLayout layout, String streamId) {
    long highest = -1;
    for (String key : store.list(layout.streamPrefix(streamId))) {
      Optional<WalLayout.SegmentName> name = layout.parse(key);
      if (name.isPresent() && name.get().streamId().equals(streamId)
          && name.get().sequence() > highest) {
        highest = name.get().sequence();
      }
    }
    return highest;
  }

  private static Optional<WalSegment> read(SegmentStore store, String key) {
    try {
      return store.get(key).map(WalSegmentCodec::decode);
    } catch (CorruptSegmentException e) {
      // The sequence still continues after it; only the clock hint and its keys are lost.
      LOG.warn("Cannot read WAL segment {}: {}", key, e.getMessage());
      return Optional.empty();
    }
  }
}
