package io.verglas.cache.s3;

/**
 * A single byte range {@code [start, end]} (inclusive) from a {@code Range} header, resolved
 * against the object size. Like S3: a header that is not a single {@code bytes=} range (syntax
 * errors, several ranges) is ignored and the whole object is served; a range starting at or
 * beyond the end is InvalidRange (416).
 */
record HttpRange(long start, long end) {
  long length() {
    return end - start + 1;
  }

  /** The range to serve, or null for the whole object. */
  static HttpRange parse(String header, long size) {
    if (header == null) {
      return null;
    }
    String h = header.trim();
    if (!h.startsWith("bytes=") || h.indexOf(',') >= 0) {
      return null;
    }
    String spec = h.substring("bytes=".length()).trim();
    int dash = spec.indexOf('-');
    if (dash < 0) {
      return null;
    }
    String first = spec.substring(0, dash).trim();
    String last = spec.substring(dash + 1).trim();
    try {
      if (first.isEmpty()) {
        long suffix = Long.parseLong(last);
        if (suffix <= 0 || size == 0) {
          throw invalid(header, size);
        }
        return new HttpRange(Math.max(0, size - suffix), size - 1);
      }
      long start = Long.parseLong(first);
      long end = last.isEmpty() ? Long.MAX_VALUE : Long.parseLong(last);
      if (start < 0 || end < start) {
        return null;
      }
      if (start >= size) {
        throw invalid(header, size);
      }
      return new HttpRange(start, Math.min(end, size - 1));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static S3Exception invalid(String header, long size) {
    return new S3Exception(S3ErrorCode.INVALID_RANGE, "The requested range is not satisfiable")
        .detail("RangeRequested", header)
        .detail("ActualObjectSize", Long.toString(size))
        .header("Content-Range", "bytes */" + size);
  }
}
