package io.verglas.queue.log;

import io.verglas.clock.HybridLogicalClock;
import io.verglas.queue.Delivery;
import io.verglas.queue.QueueException;
import io.verglas.queue.QueueMessage;
import io.verglas.queue.QueuePosition;
import io.verglas.wal.CorruptSegmentException;
import io.verglas.wal.EncodedSegment;
import io.verglas.wal.StreamHighWater;
import io.verglas.wal.WalBatch;
import io.verglas.wal.WalLayout.SegmentName;
import io.verglas.wal.WalSegment;
import io.verglas.wal.WalSegmentCodec;
import io.verglas.wal.WalSegmentHeader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * One queue's log: WAL segments in sequence order under {@code _queues/<queue>/}.
 *
 * <p>Design. The log is a single WAL stream that any number of publishers (in any number of
 * processes) append to without a lock: a publisher writes segment {@code n + 1} with
 * {@code If-None-Match: *} only after it saw segment {@code n} exist (it wrote it, listed it, or
 * lost the race for it with a 412). So a listing never shows a later segment before an earlier
 * one, and every acknowledged segment holds the sequence it was written under forever. A
 * publisher that loses a race lists the tail again and retries one further; the batches keep
 * their stamps. Retention deletes segments only after raising the stream's high-water mark
 * ({@link StreamHighWater}) over them, so a restarted publisher never reuses a sequence.
 *
 * <p>Segment header: the table UUID is a name-based UUID of {@code queue/<name>}, the table name
 * {@code [_queues, <name>]}, schema id 0, the stream id the queue's name. Each batch is one
 * publish call's messages ({@link MessageBatchCodec}).
 */
public final class SegmentLog {
  private static final int MAX_APPEND_ATTEMPTS = 1_000;
  private final QueueObjects objects;
  private final QueueLayout layout;
  private final String queue;
  private final MessageBatchCodec codec;
  private final String tableUuid;
  private long tail = -2;

  public SegmentLog(QueueObjects objects, QueueLayout layout, String queue,
      MessageBatchCodec codec) {
    this.objects = objects;
    this.layout = layout;
    this.queue = QueueLayout.checkQueue(queue);
    this.codec = codec;
    this.tableUuid = UUID.nameUUIDFromBytes(("queue/" + queue).getBytes(StandardCharsets.UTF_8))
        .toString();
  }

  public String queue() {
    return queue;
  }

  /**
   * Writes the batches as the next segment and returns its sequence once it is durable. Not
   * thread-safe: one appender per log object (the publisher's writer thread).
   */
  public long append(List<WalBatch> batches, long createdAtMillis) {
    if (tail == -2) {
      tail = lastSequence();
    }
    for (int attempt = 0; attempt < MAX_APPEND_ATTEMPTS; attempt++) {
      long sequence = tail + 1;
      EncodedSegment segment = WalSegmentCodec.encodeParts(header(sequence, batches,
          createdAtMillis), batches);
      String key = layout.segmentKey(queue, sequence);
      if (objects.create(key, RequestBody.fromContentProvider(segment::newInputStream,
          segment.length(), "application/vnd.verglas.wal-segment"))) {
        tail = sequence;
        return sequence;
      }
      tail = Math.max(sequence, lastSequenceAfter(sequence));
    }
    throw new QueueException("Cannot publish to queue " + queue + ": lost the race for the next "
        + "segment " + MAX_APPEND_ATTEMPTS + " times");
  }

  private WalSegmentHeader header(long sequence, List<WalBatch> batches, long createdAtMillis) {
    long records = 0;
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (WalBatch batch : batches) {
      records += batch.rowCount();
      min = Math.min(min, batch.hlc());
      max = Math.max(max, batch.hlc());
    }
    return new WalSegmentHeader(tableUuid, List.of(QueueLayout.SEGMENT_PREFIX, queue), 0, queue,
        sequence, records, min, max, createdAtMillis);
  }

  /** The highest sequence written or retained away, -1 for an empty, never-used log. */
  public long lastSequence() {
    long mark = highWater();
    return Math.max(mark, lastSequenceAfter(mark));
  }

  private long lastSequenceAfter(long sequence) {
    long last = -1;
    String after = sequence < 0 ? null : layout.segmentKey(queue, sequence);
    while (true) {
      List<QueueObjects.Listed> page = objects.list(layout.segmentPrefix(queue), after, 1000);
      for (QueueObjects.Listed object : page) {
        Optional<SegmentName> name = layout.segments().parse(object.key());
        if (name.isPresent()) {
          last = Math.max(last, name.get().sequence());
        }
      }
      if (page.size() < 1000) {
        return last;
      }
      after = page.get(page.size() - 1).key();
    }
  }

  /** The segments after {@code sequence} (-1: from the start), in order, at most {@code limit}. */
  public List<QueueObjects.Listed> segmentsAfter(long sequence, int limit) {
    String after = sequence < 0 ? null : layout.segmentKey(queue, sequence);
    List<QueueObjects.Listed> segments = new ArrayList<>();
    for (QueueObjects.Listed object : objects.list(layout.segmentPrefix(queue), after, limit)) {
      if (layout.segments().parse(object.key()).isPresent()) {
        segments.add(object);
      }
    }
    return segments;
  }

  public long sequenceOf(QueueObjects.Listed segment) {
    return layout.segments().parse(segment.key()).orElseThrow().sequence();
  }

  /**
   * The messages of one segment in log order, or empty when it is gone (deleted by retention).
   * A segment that fails its checksums, or is not this queue's, is a {@link QueueException}
   * naming the object: it is never delivered in part.
   */
  public Optional<List<Delivery>> read(long sequence) {
    String key = layout.segmentKey(queue, sequence);
    Optional<QueueObjects.Versioned> object = objects.get(key);
    if (object.isEmpty()) {
      return Optional.empty();
    }
    try {
      WalSegment segment = WalSegmentCodec.decode(object.get().bytes());
      if (!segment.header().streamId().equals(queue) || segment.header().sequence() != sequence) {
        throw new CorruptSegmentException("Cannot read WAL segment: it names stream "
            + segment.header().streamId() + " sequence " + segment.header().sequence());
      }
      return Optional.of(deliveries(segment));
    } catch (CorruptSegmentException e) {
      throw new QueueException("Cannot read queue " + queue + ": segment s3://"
          + objects.bucket() + "/" + key + " is corrupt (" + e.getMessage() + ")", e);
    }
  }

  private List<Delivery> deliveries(WalSegment segment) {
    List<Delivery> out = new ArrayList<>();
    long sequence = segment.header().sequence();
    for (WalBatch batch : segment.batches()) {
      long published = HybridLogicalClock.physicalMillis(batch.hlc());
      for (QueueMessage message : codec.decode(batch.arrowIpc())) {
        out.add(new Delivery(new QueuePosition(sequence, out.size()), message, published));
      }
    }
    return out;
  }

  /** The highest sequence retention may have deleted, -1 when none. */
  public long highWater() {
    return StreamHighWater.read(objects.client(), objects.bucket(), layout.segments(), queue);
  }

  /** Raises the high-water mark before segments up to {@code sequence} are deleted. */
  public void raiseHighWater(long sequence) {
    StreamHighWater.raise(objects.client(), objects.bucket(), layout.segments(), queue, sequence);
  }

  public MessageBatchCodec codec() {
    return codec;
  }
}
