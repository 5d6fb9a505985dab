package io.verglas.materializer.keyindex;

import java.util.regex.Pattern;

/**
 * Data file paths in the form the key index stores them: relative to the table location when
 * the file lies under it (as every file the writer creates does, unless {@code write.data.path}
 * points elsewhere), otherwise as they are.
 *
 * <p>Why: the index holds one entry per primary key and every upsert rewrites it; the path was
 * most of the entry (a hundred-odd bytes of an S3 or warehouse prefix that every entry of the
 * table repeats), and RocksDB copies each entry into its memtable, flushes it to files and
 * uploads those with every incremental checkpoint.
 *
 * <p>A stored path is relative exactly when it does not start the way an absolute one does (a
 * {@code /} or a URI scheme): {@link #relativize} keeps a path whose remainder would look
 * absolute, so {@link #resolve} inverts it for the same location. When the table moved since
 * (its location changed), a relative path resolves to a file that is not in the table: the
 * committer then treats the delete like one against a rewritten file and finds the row by its
 * key, which is slower but exact.
 */
public final class IndexedPaths {
  private static final Pattern ABSOLUTE = Pattern.compile("^(/|[A-Za-z][A-Za-z0-9+.-]*:)");

  private IndexedPaths() {}

  /** {@code path} as the index stores it for a table at {@code location}. */
  public static String relativize(String location, String path) {
    String prefix = prefix(location);
    if (path.startsWith(prefix)) {
      String rest = path.substring(prefix.length());
      if (!rest.isEmpty() && !ABSOLUTE.matcher(rest).lookingAt()) {
        return rest;
      }
    }
    return path;
  }

  /** The full path of a stored one, for a table at {@code location}. */
  public static String resolve(String location, String stored) {
    return ABSOLUTE.matcher(stored).lookingAt() ? stored : prefix(location) + stored;
  }

  /** {@code location} as the prefix of the paths under it (one trailing slash). */
  public static String prefix(String location) {
    return location.endsWith("/") ? location : location + "/";
  }
}
