package io.verglas.cache.s3;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/** The three time formats of S3: XML timestamps, HTTP dates and SigV4 basic ISO 8601. */
final class S3Dates {
  private static final DateTimeFormatter XML =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter HTTP =
      DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter AMZ =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  private S3Dates() {}

  static String xml(Instant instant) {
    return XML.format(instant.truncatedTo(ChronoUnit.MILLIS));
  }

  /** A formatted second. */
  private record Second(long epochSecond, String text) {}

  /**
   * Recently formatted seconds, by second modulo the size: the Date header of every response
   * and the Last-Modified of hot objects repeat, and formatting costs more than the rest of a
   * header. Races only cost a recomputation.
   */
  private static final Second[] RECENT = new Second[256];

  static String http(Instant instant) {
    long second = instant.getEpochSecond();
    int slot = (int) (second & (RECENT.length - 1));
    Second known = RECENT[slot];
    if (known != null && known.epochSecond() == second) {
      return known.text();
    }
    String text = HTTP.format(instant);
    RECENT[slot] = new Second(second, text);
    return text;
  }

  static String amz(Instant instant) {
    return AMZ.format(instant);
  }

  /** An HTTP date (RFC 1123), or null if the value is not one. */
  static Instant parseHttp(String value) {
    if (value == null) {
      return null;
    }
    try {
      return DateTimeFormatter.RFC_1123_DATE_TIME.parse(value.trim(), Instant::from);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /** A SigV4 timestamp (yyyyMMdd'T'HHmmss'Z'), or null if the value is not one. */
  static Instant parseAmz(String value) {
    if (value == null) {
      return null;
    }
    try {
      return AMZ.parse(value.trim(), Instant::from);
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
