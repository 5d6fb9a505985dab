package io.verglas.queue;

/**
 * Where a message sits in its queue's log: the segment's sequence and the message's index in
 * the segment (over all its batches). Positions of one queue are totally ordered: the log order.
 */
public record QueuePosition(long sequence, int index) implements Comparable<QueuePosition> {
  @Override
  public int compareTo(QueuePosition other) {
    int bySequence = Long.compare(sequence, other.sequence);
    return bySequence != 0 ? bySequence : Integer.compare(index, other.index);
  }

  @Override
  public String toString() {
    return sequence + ":" + index;
  }
}
