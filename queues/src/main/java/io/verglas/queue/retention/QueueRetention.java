package io.verglas.queue.retention;

import io.verglas.queue.group.GroupState;
import io.verglas.queue.group.GroupStateCodec;
import io.verglas.queue.log.QueueLayout;
import io.verglas.queue.log.QueueObjects;
import io.verglas.queue.log.SegmentLog;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * Deletes one queue's expired segments ({@link RetentionPlanner}): reads every group's
 * acknowledged position, lists the log, raises the high-water mark over the segments to delete,
 * then deletes them oldest first. Safe to run from several places at once and to run again after
 * a crash (the mark only rises, deletes are idempotent). A group created between the listing of
 * groups and the deletes starts after the mark and skips the deleted segments.
 */
public final class QueueRetention {
  private static final int PAGE = 1000;
  private final QueueObjects objects;
  private final QueueLayout layout;
  private final SegmentLog log;
  private final RetentionPolicy policy;
  private final Clock clock;

  public QueueRetention(QueueObjects objects, QueueLayout layout, SegmentLog log,
      RetentionPolicy policy, Clock clock) {
    this.objects = objects;
    this.layout = layout;
    this.log = log;
    this.policy = policy;
    this.clock = clock;
  }

  /** Runs one pass; returns the number of segments deleted. */
  public int run() {
    long acknowledged = lowestAcknowledged();
    List<RetentionPlanner.Segment> segments = segments();
    int count = RetentionPlanner.expired(segments, acknowledged, clock.millis(), policy);
    if (count == 0) {
      return 0;
    }
    log.raiseHighWater(segments.get(count - 1).sequence());
    for (int i = 0; i < count; i++) {
      objects.delete(layout.segmentKey(log.queue(), segments.get(i).sequence()));
    }
    return count;
  }

  private long lowestAcknowledged() {
    long lowest = Long.MAX_VALUE;
    String prefix = layout.groupPrefix(log.queue());
    for (QueueObjects.Listed object : objects.list(prefix, null, Integer.MAX_VALUE)) {
      GroupState state = objects.get(object.key())
          .map(v -> GroupStateCodec.fromJson(v.bytes())).orElse(null);
      if (state != null) {
        lowest = Math.min(lowest, state.acked());
      }
    }
    return lowest;
  }

  private List<RetentionPlanner.Segment> segments() {
    List<RetentionPlanner.Segment> segments = new ArrayList<>();
    long after = -1;
    while (true) {
      List<QueueObjects.Listed> page = log.segmentsAfter(after, PAGE);
      for (QueueObjects.Listed object : page) {
        after = log.sequenceOf(object);
        segments.add(new RetentionPlanner.Segment(after, object.size(),
            object.lastModifiedMillis()));
      }
      if (page.size() < PAGE) {
        return segments;
      }
    }
  }
}
