package io.verglas.queue.retention;

import java.util.List;

/**
 * Which segments retention deletes, as a pure function: the longest prefix of the log (oldest
 * first) whose every segment is at or below {@code acknowledged} (the lowest acknowledged
 * position of all groups) and either older than the policy's age or followed by more than its
 * byte bound of newer segments. A prefix, never a hole: the high-water mark then says exactly
 * which sequences may be gone.
 */
public final class RetentionPlanner {
  /** One segment as listed: sequence, size, last-modified time. */
  public record Segment(long sequence, long size, long writtenAtMillis) {}

  private RetentionPlanner() {}

  /** The number of segments, from the oldest, to delete. */
  public static int expired(List<Segment> segments, long acknowledged, long nowMillis,
      RetentionPolicy policy) {
    long newerBytes = 0;
    for (Segment segment : segments) {
      newerBytes += segment.size();
    }
    int count = 0;
    for (Segment segment : segments) {
      newerBytes -= segment.size();
      boolean old = nowMillis - segment.writtenAtMillis() > policy.maxAge().toMillis();
      boolean crowded = newerBytes >= policy.maxBytes();
      if (segment.sequence() > acknowledged || !(old || crowded)) {
        break;
      }
      count++;
    }
    return count;
  }
}
