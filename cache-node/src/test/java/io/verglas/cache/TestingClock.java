package io.verglas.cache;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** The system clock shifted by an adjustable offset, for skew and expiry tests. */
public final class TestingClock extends Clock {
  private volatile Duration offset = Duration.ZERO;

  public void shift(Duration by) {
    offset = offset.plus(by);
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException();
  }

  @Override
  public Instant instant() {
    return Instant.now().plus(offset);
  }
}
