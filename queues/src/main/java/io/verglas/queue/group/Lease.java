package io.verglas.queue.group;

/**
 * A consumer's claim on the segments {@code [first, last]} of a queue for one consumer group,
 * until {@code deadlineMillis}. {@code generation} is unique within the group: an ack, release or
 * extension counts only while the group still holds this lease at this generation, so a consumer
 * whose lease expired and was taken over changes nothing (fencing). {@code done}: acknowledged,
 * waiting for the leases before it to be acknowledged too. {@code deliveries}: how many times
 * these segments have been handed out (1 for a new lease, one more for each takeover), which
 * {@link DeadLetters} compares with the group's bound.
 */
public record Lease(long first, long last, String consumer, long generation,
    long deadlineMillis, boolean done, int deliveries) {
  public Lease {
    if (first > last) {
      throw new IllegalArgumentException("Invalid lease: segments " + first + ".." + last);
    }
    if (deliveries < 1) {
      throw new IllegalArgumentException("Invalid lease: " + deliveries + " deliveries");
    }
  }

  /** A lease delivered for the first time. */
  public Lease(long first, long last, String consumer, long generation, long deadlineMillis,
      boolean done) {
    this(first, last, consumer, generation, deadlineMillis, done, 1);
  }

  Lease renewed(String newConsumer, long newGeneration, long deadline) {
    return new Lease(first, last, newConsumer, newGeneration, deadline, false, deliveries + 1);
  }

  Lease withDeadline(long deadline) {
    return new Lease(first, last, consumer, generation, deadline, done, deliveries);
  }

  Lease acknowledged() {
    return new Lease(first, last, consumer, generation, deadlineMillis, true, deliveries);
  }

  boolean sameAs(Lease other) {
    return first == other.first && generation == other.generation;
  }
}
