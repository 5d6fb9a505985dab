package io.verglas.query;

import java.time.Duration;

/**
 * What one query may cost the node: rows returned (and, for a traversal, vertices reached),
 * bytes of the JSON answer, keys of a lookup, seeds and depth of a traversal, and time. A query
 * over a limit is refused with 422 and the limit named, never cut short silently; a scan asked
 * for no limit returns up to {@code maxRows} rows and says whether there were more.
 */
public record QueryLimits(int maxRows, long maxResultBytes, int maxKeys, int maxDepth,
    Duration timeout) {

  public QueryLimits {
    if (maxRows <= 0 || maxResultBytes <= 0 || maxKeys <= 0 || maxDepth <= 0
        || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("Invalid query limits: " + maxRows + " rows, "
          + maxResultBytes + " bytes, " + maxKeys + " keys, depth " + maxDepth + ", " + timeout);
    }
  }

  /** 10 000 rows, 16 MiB of JSON, 10 000 keys, depth 6, 30 s. */
  public static QueryLimits defaults() {
    return new QueryLimits(10_000, 16L << 20, 10_000, 6, Duration.ofSeconds(30));
  }
}
