package io.verglas.events.publish;

/** A byte position in an outbox: a segment's number and an offset in it. */
record OutboxPosition(long segment, long offset) implements Comparable<OutboxPosition> {
  OutboxPosition {
    if (segment < 1 || offset < 0) {
      throw new IllegalArgumentException("Invalid outbox position: " + segment + "@" + offset);
    }
  }

  @Override
  public int compareTo(OutboxPosition other) {
    int bySegment = Long.compare(segment, other.segment);
    return bySegment != 0 ? bySegment : Long.compare(offset, other.offset);
  }

  @Override
  public String toString() {
    return segment + "@" + offset;
  }
}
