package io.verglas.queue.log;

import io.verglas.wal.WalLayout;
import java.util.regex.Pattern;

/**
 * Where a queue's objects live in the bucket. Segments: {@code _queues/<queue>/<sequence 20
 * digits>.vwal} — a queue is one WAL stream of {@link WalLayout} under the prefix
 * {@code _queues}, with its high-water mark beside its segments. Consumer groups:
 * {@code _queues.groups/<queue>/<group>.json}, outside the segment prefix so a listing of the
 * log never meets them.
 */
public final class QueueLayout {
  public static final String SEGMENT_PREFIX = "_queues";
  public static final String GROUP_PREFIX = "_queues.groups";
  private static final Pattern GROUP = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");

  private final WalLayout segments = new WalLayout(SEGMENT_PREFIX);

  /** The WAL layout the segments follow (the queue name is the stream id). */
  public WalLayout segments() {
    return segments;
  }

  public static String checkQueue(String queue) {
    try {
      return WalLayout.checkStreamId(queue);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Invalid queue name: '" + queue
          + "' (letters, digits, '_', '.', '-'; at most 128)");
    }
  }

  public static String checkGroup(String group) {
    if (group == null || !GROUP.matcher(group).matches()) {
      throw new IllegalArgumentException("Invalid consumer group: '" + group
          + "' (letters, digits, '_', '.', '-'; at most 128)");
    }
    return group;
  }

  public String segmentKey(String queue, long sequence) {
    return segments.segmentKey(checkQueue(queue), sequence);
  }

  public String segmentPrefix(String queue) {
    return segments.streamPrefix(checkQueue(queue));
  }

  public String groupPrefix(String queue) {
    return GROUP_PREFIX + "/" + checkQueue(queue) + "/";
  }

  public String groupKey(String queue, String group) {
    return groupPrefix(queue) + checkGroup(group) + ".json";
  }
}
