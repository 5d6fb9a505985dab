package io.verglas.cache.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

class S3DatesTest {
  private static final DateTimeFormatter RFC_1123 =
      DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);

  /** The memo of recent seconds never answers for another second (slots collide every 256 s). */
  @Property(tries = 300)
  void httpDatesAreExactWhateverTheMemoHolds(@ForAll @LongRange(min = 0, max = 4_000_000_000L) long second,
      @ForAll @LongRange(min = 0, max = 999_999_999) long nanos) {
    for (long s : new long[] {second, second + 256, second, second + 1, second + 512}) {
      Instant t = Instant.ofEpochSecond(s, nanos);
      assertThat(S3Dates.http(t)).isEqualTo(RFC_1123.format(t));
    }
  }
}
