package io.verglas.workers.schedule;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock tests move by hand; thread-safe. */
public final class TestingClock extends Clock {
  private volatile Instant now;

  public TestingClock(Instant start) {
    this.now = start;
  }

  public synchronized void advance(Duration by) {
    now = now.plus(by);
  }

  @Override
  public Instant instant() {
    return now;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("Cannot change the zone of a testing clock");
  }
}
