package io.verglas.cache.origin;

import io.verglas.cache.origin.OriginException.Reason;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Deque;
import java.util.List;

/**
 * ListObjects over a bucket directory, in S3 key order, without reading more of the tree than the
 * page needs.
 *
 * <p>Design: a depth-first walk that sorts each directory by entry name, with {@code /} appended
 * to directory names. Every key under directory {@code d} starts with {@code d/}, so this local
 * order is exactly the global key order (for example {@code a-b} sorts before everything under
 * {@code a/}). Subtrees that cannot hold keys after {@code startAfter} or under {@code prefix} are
 * not entered, and once a key rolls up into a common prefix the walker skips the rest of that
 * prefix, so a delimiter listing of a huge directory stays cheap.
 *
 * <p>Entries are named by the key segments their file names stand for ({@link LocalLayout}), so a
 * directory marker {@code d/} (the file {@code d/%%}) is the first key under {@code d}.
 *
 * <p>Continuation tokens are the base64url of the page's last entry (key or common prefix),
 * resumed as start-after; a common prefix at or before start-after is not repeated.
 */
final class LocalLister {
  private static final String TOKEN_VERSION = "1:";

  private LocalLister() {}

  /** A found object file. */
  record Found(String key, Path path) {}

  interface MetaSource {
    ObjectMeta metaOf(String key, Path path) throws IOException;
  }

  static ListPage list(Path bucketDir, ListRequest request, MetaSource metas) throws IOException {
    String startAfter = request.continuationToken() != null
        ? decodeToken(request.continuationToken())
        : request.startAfter();
    String prefix = request.prefix();
    String delimiter = request.delimiter();
    List<ListedObject> objects = new ArrayList<>();
    List<String> prefixes = new ArrayList<>();
    if (request.maxKeys() == 0) {
      return new ListPage(objects, prefixes, false, null);
    }
    Walker walker = new Walker(bucketDir, prefix, startAfter);
    String last = null;
    int count = 0;
    while (count < request.maxKeys() && walker.hasNext()) {
      Found found = walker.next();
      if (delimiter != null) {
        int at = found.key().indexOf(delimiter, prefix.length());
        if (at >= 0) {
          String common = found.key().substring(0, at + delimiter.length());
          walker.skipPrefix(common);
          if (startAfter != null && KeyOrder.compare(common, startAfter) <= 0) {
            continue;
          }
          prefixes.add(common);
          last = common;
          count++;
          continue;
        }
      }
      ObjectMeta meta = metas.metaOf(found.key(), found.path());
      if (meta == null) {
        continue; // deleted while listing
      }
      objects.add(new ListedObject(found.key(), meta.size(), meta.lastModified(), meta.etag()));
      last = found.key();
      count++;
    }
    boolean truncated = walker.hasNext();
    return new ListPage(objects, prefixes, truncated, truncated ? encodeToken(last) : null);
  }

  static String encodeToken(String lastEntry) {
    return Base64.getUrlEncoder().withoutPadding()
        .encodeToString((TOKEN_VERSION + lastEntry).getBytes(StandardCharsets.UTF_8));
  }

  static String decodeToken(String token) {
    try {
      String decoded = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
      if (decoded.startsWith(TOKEN_VERSION)) {
        return decoded.substring(TOKEN_VERSION.length());
      }
    } catch (IllegalArgumentException e) {
      // fall through
    }
    throw new OriginException(
        Reason.INVALID_ARGUMENT, "The continuation token provided is incorrect: " + token);
  }

  /** Lazy depth-first walk yielding files in key order. */
  static final class Walker {
    private final Deque<Frame> stack = new ArrayDeque<>();
    private final String prefix;
    private final String startAfter;
    private String skip;
    private Found next;

    Walker(Path bucketDir, String prefix, String startAfter) throws IOException {
      this.prefix = prefix;
      this.startAfter = startAfter;
      stack.push(new Frame("", readSorted(bucketDir)));
    }

    void skipPrefix(String commonPrefix) {
      skip = commonPrefix;
      if (next != null && next.key().startsWith(commonPrefix)) {
        next = null;
      }
    }

    boolean hasNext() {
      if (next == null) {
        next = advance();
      }
      return next != null;
    }

    Found next() {
      if (!hasNext()) {
        throw new java.util.NoSuchElementException();
      }
      Found f = next;
      next = null;
      return f;
    }

    private Found advance() {
      while (!stack.isEmpty()) {
        Frame frame = stack.peek();
        if (frame.position >= frame.entries.size()) {
          stack.pop();
          continue;
        }
        Entry entry = frame.entries.get(frame.position++);
        if (entry.directory()) {
          String dirKey = frame.keyPrefix + entry.name() + "/";
          if (skip != null && dirKey.startsWith(skip)) {
            continue;
          }
          if (!dirKey.startsWith(prefix) && !prefix.startsWith(dirKey)) {
            continue;
          }
          if (startAfter != null && KeyOrder.compare(dirKey, startAfter) < 0
              && !startAfter.startsWith(dirKey)) {
            continue; // every key under dirKey sorts before startAfter
          }
          try {
            stack.push(new Frame(dirKey, readSorted(entry.path())));
          } catch (NoSuchFileException e) {
            // removed while listing
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
          continue;
        }
        String key = frame.keyPrefix + entry.name();
        if (!key.startsWith(prefix)
            || (skip != null && key.startsWith(skip))
            || (startAfter != null && KeyOrder.compare(key, startAfter) <= 0)) {
          continue;
        }
        return new Found(key, entry.path());
      }
      return null;
    }

    private static List<Entry> readSorted(Path dir) throws IOException {
      List<Entry> entries = new ArrayList<>();
      try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
        for (Path p : stream) {
          String name = LocalLayout.segmentOf(p.getFileName().toString());
          BasicFileAttributes attrs;
          try {
            attrs = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
          } catch (NoSuchFileException e) {
            continue;
          }
          // Symlinks and special files are not objects (a link could point outside the root).
          if (attrs.isDirectory() || attrs.isRegularFile()) {
            entries.add(new Entry(name, p, attrs.isDirectory()));
          }
        }
      }
      entries.sort((a, b) -> KeyOrder.compare(a.sortName(), b.sortName()));
      return entries;
    }
  }

  private record Entry(String name, Path path, boolean directory) {
    String sortName() {
      return directory ? name + "/" : name;
    }
  }

  private static final class Frame {
    final String keyPrefix;
    final List<Entry> entries;
    int position;

    Frame(String keyPrefix, List<Entry> entries) {
      this.keyPrefix = keyPrefix;
      this.entries = entries;
    }
  }
}
