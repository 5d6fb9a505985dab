package io.verglas.queue;

import io.verglas.queue.group.GroupSettings;
import io.verglas.queue.retention.RetentionPolicy;
import java.util.Objects;

/**
 * The bounds of a {@link Queues}: how large a segment grows under load, how many message bytes
 * may wait for the writer per queue (memory), how groups lease, and when segments expire.
 */
public record QueueSettings(long maxSegmentBytes, int maxPendingBytes, GroupSettings groups,
    RetentionPolicy retention) {
  public static final long MAX_SEGMENT_BYTES_DEFAULT = 8L << 20;
  public static final int MAX_PENDING_BYTES_DEFAULT = 64 << 20;

  public QueueSettings {
    Objects.requireNonNull(groups, "groups");
    Objects.requireNonNull(retention, "retention");
    if (maxSegmentBytes < 1 || maxPendingBytes < 1) {
      throw new IllegalArgumentException("Invalid queue bounds: segment " + maxSegmentBytes
          + " bytes, pending " + maxPendingBytes + " bytes");
    }
  }

  public static QueueSettings defaults() {
    return new QueueSettings(MAX_SEGMENT_BYTES_DEFAULT, MAX_PENDING_BYTES_DEFAULT,
        GroupSettings.defaults(), RetentionPolicy.defaults());
  }

  public QueueSettings withGroups(GroupSettings newGroups) {
    return new QueueSettings(maxSegmentBytes, maxPendingBytes, newGroups, retention);
  }

  public QueueSettings withRetention(RetentionPolicy newRetention) {
    return new QueueSettings(maxSegmentBytes, maxPendingBytes, groups, newRetention);
  }
}
