package io.verglas.cache.awareness;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * A bounded, lock-free hand-off of classified reads from the serving threads to the heat
 * ledger's drainer.
 *
 * <p>Design: a ring of slots. A producer takes the next slot index from a counter and puts its
 * sample there with one compare-and-set from empty; if the slot is still full (the drainer has
 * not come round since the ring wrapped) the sample is dropped and counted. The drainer empties
 * every slot with get-and-set. No producer ever waits or retries, so the serving path costs two
 * atomic operations per sample whatever the load; under overload the ledger sees a sample of
 * the reads, which is all heat needs. Samples are shared {@link HeatCoordinates} instances from
 * the index, so offering allocates nothing. Order is not kept (counts do not need it).
 */
final class HeatSamples {
  private final AtomicReferenceArray<HeatCoordinates> slots;
  private final int mask;
  private final AtomicLong next = new AtomicLong();
  private final LongAdder offered = new LongAdder();
  private final LongAdder dropped = new LongAdder();

  /** A ring of at least {@code capacity} slots (rounded up to a power of two). */
  HeatSamples(int capacity) {
    if (capacity <= 0 || capacity > 1 << 24) {
      throw new IllegalArgumentException("Invalid heat sample buffer: " + capacity + " (must be 1.." + (1 << 24) + ")");
    }
    int size = Integer.highestOneBit(capacity);
    size = size < capacity ? size << 1 : size;
    this.slots = new AtomicReferenceArray<>(size);
    this.mask = size - 1;
  }

  /** Never blocks; false (counted) if the ring is full at that slot. */
  boolean offer(HeatCoordinates sample) {
    offered.increment();
    int slot = (int) (next.getAndIncrement() & mask);
    if (slots.compareAndSet(slot, null, sample)) {
      return true;
    }
    dropped.increment();
    return false;
  }

  /** Empties the ring into {@code sink}; returns the samples taken. Concurrent drains split them. */
  int drain(Consumer<HeatCoordinates> sink) {
    int taken = 0;
    for (int i = 0; i < slots.length(); i++) {
      HeatCoordinates sample = slots.getAndSet(i, null);
      if (sample != null) {
        sink.accept(sample);
        taken++;
      }
    }
    return taken;
  }

  long offered() {
    return offered.sum();
  }

  long dropped() {
    return dropped.sum();
  }
}
