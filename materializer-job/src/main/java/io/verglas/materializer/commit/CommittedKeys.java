package io.verglas.materializer.commit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.verglas.materializer.delta.TableDelta;
import io.verglas.materializer.progress.SegmentProgress;
import io.verglas.materializer.progress.WalMark;
import io.verglas.materializer.store.WalStore;
import io.verglas.table.VerglasTableProperties;
import io.verglas.wal.WalBatch;
import io.verglas.wal.WalSegment;
import io.verglas.wal.WalSegmentCodec;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The idempotency keys of the client batches one commit makes durable in its table, for the
 * snapshot summary ({@value VerglasTableProperties#SUMMARY_IDEMPOTENCY_KEYS},
 * {@value VerglasTableProperties#SUMMARY_IDEMPOTENCY_KEY_COUNT}).
 *
 * <p>Design: the rows travel from the source to the committer without their batch's key (the
 * row, delta and checkpoint formats stay as they are), but the committer knows the segment
 * range it commits and the segments are still in the store (they are deleted after the commit).
 * So it reads each segment of the delta again and takes the keys of the batches that end inside
 * the newly committed rows: {@code (previous mark, progress]} of the segment. A batch split by a
 * checkpoint counts in the commit that completes it. The WAL marks remain what decides whether
 * rows are committed; the keys tell a reader (a worker's run log, a client) which named
 * batches a snapshot made durable. Best effort: a segment that is already gone (its rows all
 * lost to newer versions in a commit-less checkpoint) or unreadable contributes no keys.
 *
 * <p>Cost and memory: one extra GET per segment per commit, one segment decoded at a time. The
 * summary value is cut at {@link #MAX_SUMMARY_CHARS} characters (snapshot summaries live in
 * every metadata file); the count still counts every key.
 */
final class CommittedKeys {
  private static final Logger LOG = LoggerFactory.getLogger(CommittedKeys.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  static final int MAX_SUMMARY_CHARS = 8 * 1024;

  private CommittedKeys() {}

  /** The summary entries for the keys {@code delta} commits after {@code before}; empty without keys. */
  static Map<String, String> summary(WalStore store, TableDelta delta, Map<String, WalMark> before) {
    List<String> keys = new ArrayList<>();
    List<Map.Entry<String, SegmentProgress>> segments = new ArrayList<>(delta.segments().entrySet());
    segments.sort(Comparator.comparing((Map.Entry<String, SegmentProgress> e) -> e.getValue().streamId())
        .thenComparingLong(e -> e.getValue().sequence()));
    for (Map.Entry<String, SegmentProgress> segment : segments) {
      keys.addAll(keys(store, segment.getKey(), segment.getValue(),
          before.getOrDefault(segment.getValue().streamId(), WalMark.NONE)));
    }
    if (keys.isEmpty()) {
      return Map.of();
    }
    Map<String, String> summary = new TreeMap<>();
    summary.put(VerglasTableProperties.SUMMARY_IDEMPOTENCY_KEYS, render(keys));
    summary.put(VerglasTableProperties.SUMMARY_IDEMPOTENCY_KEY_COUNT, Integer.toString(keys.size()));
    return summary;
  }

  /** The keys of the batches of one segment that end within its newly committed rows. */
  static List<String> keys(WalStore store, String segmentKey, SegmentProgress progress, WalMark mark) {
    if (progress.sequence() <= mark.fullThrough()) {
      return List.of();
    }
    long from = progress.sequence() == mark.fullThrough() + 1 ? mark.partialRows() : 0;
    Optional<WalSegment> segment = read(store, segmentKey);
    if (segment.isEmpty()) {
      return List.of();
    }
    List<String> keys = new ArrayList<>();
    long end = 0;
    for (WalBatch batch : segment.get().batches()) {
      end += batch.rowCount();
      if (batch.idempotencyKey() != null && end > from && end <= progress.rowsThrough()) {
        keys.add(batch.idempotencyKey());
      }
    }
    return keys;
  }

  private static Optional<WalSegment> read(WalStore store, String segmentKey) {
    try {
      return store.get(segmentKey).map(WalSegmentCodec::decode);
    } catch (RuntimeException e) {
      LOG.warn("Cannot read the idempotency keys of WAL segment {}: {}", segmentKey, e.toString());
      return Optional.empty();
    }
  }

  /** A JSON array of the keys, as many as fit in {@link #MAX_SUMMARY_CHARS}. */
  static String render(List<String> keys) {
    List<String> kept = new ArrayList<>();
    int chars = 2;
    for (String key : keys) {
      chars += key.length() + 3; // quotes and comma; escapes make it a little longer, rarely
      if (chars > MAX_SUMMARY_CHARS) {
        break;
      }
      kept.add(key);
    }
    try {
      return JSON.writeValueAsString(kept);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot render idempotency keys", e);
    }
  }
}
