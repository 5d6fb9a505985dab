package io.verglas.wal;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where WAL segments live in the object store: {@code <prefix>/<streamId>/<sequence>.vwal} with
 * the sequence zero-padded to 20 digits, so a lexicographic listing of a stream's prefix returns
 * its segments in order and {@code start-after} resumes a listing exactly.
 */
public final class WalLayout {
  public static final String DEFAULT_PREFIX = "_wal";
  private static final Pattern STREAM_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");
  private static final Pattern SEGMENT = Pattern.compile("(.+)/([^/]+)/(\\d{20})\\.vwal");

  private final String prefix;

  public WalLayout(String prefix) {
    if (prefix.isEmpty() || prefix.startsWith("/") || prefix.endsWith("/")) {
      throw new IllegalArgumentException("Invalid WAL prefix: '" + prefix + "'");
    }
    this.prefix = prefix;
  }

  public static WalLayout defaults() {
    return new WalLayout(DEFAULT_PREFIX);
  }

  public static String checkStreamId(String streamId) {
    if (streamId == null || !STREAM_ID.matcher(streamId).matches()) {
      throw new IllegalArgumentException("Invalid stream id: '" + streamId
          + "' (letters, digits, '_', '.', '-'; at most 128)");
    }
    return streamId;
  }

  public String prefix() {
    return prefix + "/";
  }

  public String streamPrefix(String streamId) {
    return prefix + "/" + checkStreamId(streamId) + "/";
  }

  public String segmentKey(String streamId, long sequence) {
    return streamPrefix(streamId) + String.format("%020d", sequence) + ".vwal";
  }

  /**
   * The stream's high-water mark object: the highest sequence whose segment may have been
   * deleted. Its name sorts after every segment key of the stream and is not a segment.
   */
  public String highWaterKey(String streamId) {
    return streamPrefix(streamId) + "high-water";
  }

  /** The (stream, sequence) a key names, or empty when the key is not a segment of this log. */
  public Optional<SegmentName> parse(String key) {
    Matcher m = SEGMENT.matcher(key);
    if (!m.matches() || !m.group(1).equals(prefix)) {
      return Optional.empty();
    }
    return Optional.of(new SegmentName(m.group(2), Long.parseLong(m.group(3)), key));
  }

  /** A parsed segment key. */
  public record SegmentName(String streamId, long sequence, String key) {}
}
