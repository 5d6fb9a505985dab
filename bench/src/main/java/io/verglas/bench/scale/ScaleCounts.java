package io.verglas.bench.scale;

import java.util.concurrent.atomic.LongAdder;

/**
 * Requests counted by whom they name (no table, an active one, an idle one), while enabled:
 * the catalog's queries and the origin's requests of one run's measured window.
 */
final class ScaleCounts {
  private final ScaleTables tables;
  private final LongAdder none = new LongAdder();
  private final LongAdder active = new LongAdder();
  private final LongAdder idle = new LongAdder();
  private volatile boolean enabled;
  /** When a request last named an idle table, counted or not. */
  private volatile long lastIdleNanos = System.nanoTime();

  ScaleCounts(ScaleTables tables) {
    this.tables = tables;
  }

  ScaleTables tables() {
    return tables;
  }

  void enable(boolean value) {
    enabled = value;
  }

  void count(ScaleTables.Kind kind) {
    if (kind == ScaleTables.Kind.IDLE) {
      lastIdleNanos = System.nanoTime();
    }
    if (!enabled) {
      return;
    }
    switch (kind) {
      case NONE -> none.increment();
      case ACTIVE -> active.increment();
      case IDLE -> idle.increment();
    }
  }

  /** How long no request has named an idle table, whether counting or not. */
  long quietNanos() {
    return System.nanoTime() - lastIdleNanos;
  }

  /** The counts so far. */
  Figures figures() {
    return new Figures(none.sum(), active.sum(), idle.sum());
  }

  record Figures(long namingNoTable, long namingActive, long namingIdle) {
    long total() {
      return namingNoTable + namingActive + namingIdle;
    }
  }
}
