package io.verglas.queue;

import io.verglas.access.ObjectGrant;
import io.verglas.queue.group.DeadLetters;
import io.verglas.queue.log.QueueLayout;
import java.util.List;

/**
 * The objects of the bucket a queue verb touches ({@link QueueLayout}), as the object grants of
 * a scoped token whose S3 session credentials the cache node checks. Publishing to {@code q}
 * lists, reads and writes its segments and high-water mark ({@code _queues/q/}). Consuming from
 * {@code q} in any group reads its segments, reads and writes the groups' state
 * ({@code _queues.groups/q/}) and publishes dead letters to {@code q.dead.<group>}
 * ({@code _queues/q.dead.}, every group's). Nothing else: not other queues, nor tables.
 */
public final class QueueObjectGrants {
  private static final QueueLayout LAYOUT = new QueueLayout();

  private QueueObjectGrants() {}

  public static List<ObjectGrant> publish(String bucket, String queue) {
    return List.of(ObjectGrant.readWrite(bucket, LAYOUT.segmentPrefix(queue)));
  }

  public static List<ObjectGrant> consume(String bucket, String queue) {
    return List.of(
        ObjectGrant.read(bucket, LAYOUT.segmentPrefix(queue)),
        ObjectGrant.readWrite(bucket, LAYOUT.groupPrefix(queue)),
        ObjectGrant.readWrite(bucket, QueueLayout.SEGMENT_PREFIX + "/"
            + DeadLetters.deadLetterPrefix(queue)));
  }
}
