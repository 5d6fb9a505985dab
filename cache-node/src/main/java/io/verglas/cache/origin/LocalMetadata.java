package io.verglas.cache.origin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ETags and stored metadata of local objects.
 *
 * <p>Design: each object written through the origin gets a sidecar (JSON, format version 1) that
 * holds its ETag, content type, user metadata and the {@link FileStamp} of the content file it
 * describes. A sidecar is trusted only if its stamp equals the content file's current stamp, so a
 * stale sidecar (crash between renames, a file replaced behind our back) is never paired with
 * other content. Without a matching sidecar the ETag is the MD5 of the content, read from the very
 * file handle being served, and default metadata applies. Results of reads are memoized per path
 * by stamp so a hot object costs one stat per lookup; a write (which leaves a sidecar) is not, so
 * objects written and never read through the origin (the metadata of idle tables) cost no heap,
 * and the first read of a written object reads its sidecar.
 *
 * <pre>
 * {"format":1,"etag":"\"..\"","size":N,"mtimeNanos":N,"inode":N,
 *  "contentType":"..","userMetadata":{..},"contentHeaders":{..}[,"partSizes":[N,..]]}
 * </pre>
 *
 * {@code partSizes} (optional, written for completed multipart uploads only) is an addition
 * within format version 1: readers that do not know it ignore it, and a sidecar without it is a
 * sidecar of an object in one part.
 */
final class LocalMetadata {
  static final int FORMAT_VERSION = 1;
  private static final Logger LOG = LoggerFactory.getLogger(LocalMetadata.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int READ_BUFFER = 256 * 1024;
  private static final int OPEN_ATTEMPTS = 16;

  private final Cache<Path, Stamped> memo = Caffeine.newBuilder().maximumSize(100_000).build();

  record Stamped(FileStamp stamp, ObjectMeta meta) {}

  /** Metadata of exactly this version of the file if known (memo or sidecar), else null. */
  ObjectMeta lookup(Path file, Path sidecar, FileStamp stamp) throws IOException {
    Stamped known = memo.getIfPresent(file);
    if (known != null && known.stamp().equals(stamp)) {
      return known.meta();
    }
    if (sidecar != null) {
      Stamped fromSidecar = readSidecar(sidecar);
      if (fromSidecar != null && fromSidecar.stamp().equals(stamp)) {
        memo.put(file, fromSidecar);
        return fromSidecar.meta();
      }
    }
    return null;
  }

  /** Metadata from the content of an open file whose stamp was checked by the caller. */
  ObjectMeta compute(Path file, FileChannel channel, FileStamp stamp) throws IOException {
    MessageDigest md5 = ETags.newMd5();
    ByteBuffer buffer = ByteBuffer.allocate(READ_BUFFER);
    long position = 0;
    while (position < stamp.size()) {
      buffer.clear();
      int n = channel.read(buffer, position);
      if (n < 0) {
        throw new IOException("Cannot read " + file + ": it ended at " + position
            + " bytes, expected " + stamp.size());
      }
      buffer.flip();
      md5.update(buffer);
      position += n;
    }
    ObjectMeta meta = new ObjectMeta(
        ETags.ofMd5(md5.digest()), stamp.size(), stamp.lastModified(), null, Map.of(), Map.of());
    memo.put(file, new Stamped(stamp, meta));
    return meta;
  }

  /** An open handle on one version of an object, with that version's metadata. */
  record Opened(FileChannel channel, FileStamp stamp, ObjectMeta meta) implements Closeable {
    @Override
    public void close() throws IOException {
      channel.close();
    }
  }

  /**
   * Opens the current version of {@code file} and resolves its metadata, or returns null if there
   * is no object. Stat, open, stat: if both stats agree (same inode), the handle is that version,
   * because writers only ever rename new inodes into place.
   */
  Opened open(Path file, Path sidecar) throws IOException {
    for (int attempt = 0; attempt < OPEN_ATTEMPTS; attempt++) {
      FileStamp before = FileStamp.read(file);
      if (before == null) {
        return null;
      }
      FileChannel channel;
      try {
        channel = FileChannel.open(file, StandardOpenOption.READ);
      } catch (NoSuchFileException e) {
        continue;
      }
      boolean handedOut = false;
      try {
        if (!before.equals(FileStamp.read(file))) {
          continue;
        }
        ObjectMeta meta = lookup(file, sidecar, before);
        if (meta == null) {
          meta = compute(file, channel, before);
        }
        handedOut = true;
        return new Opened(channel, before, meta);
      } finally {
        if (!handedOut) {
          channel.close();
        }
      }
    }
    throw new IOException("Cannot open " + file + ": it was replaced " + OPEN_ATTEMPTS
        + " times while being opened");
  }

  /** Metadata of the current version, or null if there is no object. */
  ObjectMeta current(Path file, Path sidecar) throws IOException {
    FileStamp stamp = FileStamp.read(file);
    if (stamp == null) {
      return null;
    }
    ObjectMeta known = lookup(file, sidecar, stamp);
    if (known != null) {
      return known;
    }
    try (Opened opened = open(file, sidecar)) {
      return opened == null ? null : opened.meta();
    }
  }

  void remember(Path file, FileStamp stamp, ObjectMeta meta) {
    memo.put(file, new Stamped(stamp, meta));
  }

  void forget(Path file) {
    memo.invalidate(file);
  }

  /** Files whose metadata is memoized. */
  int memoized() {
    return memo.asMap().size();
  }

  static byte[] encodeSidecar(FileStamp stamp, ObjectMeta meta) {
    return encodeSidecar(stamp, meta, List.of());
  }

  static byte[] encodeSidecar(FileStamp stamp, ObjectMeta meta, List<Long> partSizes) {
    ObjectNode node = JSON.createObjectNode();
    node.put("format", FORMAT_VERSION);
    node.put("etag", meta.etag());
    node.put("size", stamp.size());
    node.put("mtimeNanos", stamp.mtimeNanos());
    node.put("inode", stamp.inode());
    node.put("contentType", meta.contentType());
    ObjectNode user = node.putObject("userMetadata");
    new TreeMap<>(meta.userMetadata()).forEach(user::put);
    ObjectNode headers = node.putObject("contentHeaders");
    new TreeMap<>(meta.contentHeaders()).forEach(headers::put);
    if (!partSizes.isEmpty()) {
      var parts = node.putArray("partSizes");
      partSizes.forEach(parts::add);
    }
    try {
      return JSON.writeValueAsBytes(node);
    } catch (IOException e) {
      throw new IllegalStateException("Cannot encode a sidecar", e);
    }
  }

  /** Decodes a sidecar; null if it is not a readable sidecar of a known format version. */
  static Stamped decodeSidecar(byte[] bytes) {
    try {
      JsonNode node = JSON.readTree(bytes);
      int format = node.path("format").asInt(-1);
      if (format != FORMAT_VERSION) {
        LOG.warn("Ignoring a sidecar of unknown format version {}", format);
        return null;
      }
      FileStamp stamp = new FileStamp(
          node.get("size").asLong(), node.get("mtimeNanos").asLong(), node.get("inode").asLong());
      ObjectMeta meta = new ObjectMeta(
          node.get("etag").asText(),
          stamp.size(),
          stamp.lastModified(),
          node.path("contentType").asText(null),
          stringMap(node.path("userMetadata")),
          stringMap(node.path("contentHeaders")));
      return new Stamped(stamp, meta);
    } catch (IOException | RuntimeException e) {
      LOG.warn("Ignoring an unreadable sidecar: {}", e.toString());
      return null;
    }
  }

  /**
   * The part sizes of the current version of {@code file} if it is the multipart object with
   * {@code etag}; empty if that version is one part; null if the current version has another
   * ETag (or there is none).
   */
  List<Long> partSizes(Path file, Path sidecar, String etag) throws IOException {
    ObjectMeta meta = current(file, sidecar);
    if (meta == null || !ETags.matches(meta.etag(), etag)) {
      return null;
    }
    FileStamp stamp = FileStamp.read(file);
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(sidecar);
    } catch (NoSuchFileException e) {
      return List.of();
    }
    Stamped stamped = decodeSidecar(bytes);
    if (stamped == null || !stamped.stamp().equals(stamp) || !ETags.matches(stamped.meta().etag(), etag)) {
      return List.of();
    }
    List<Long> sizes = new ArrayList<>();
    JsonNode parts = JSON.readTree(bytes).path("partSizes");
    parts.forEach(n -> sizes.add(n.asLong()));
    return sizes;
  }

  private static Stamped readSidecar(Path sidecar) throws IOException {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(sidecar);
    } catch (NoSuchFileException e) {
      return null;
    }
    return decodeSidecar(bytes);
  }

  /** A JSON object of strings as a map (missing node: empty map). */
  static Map<String, String> stringMap(JsonNode node) {
    Map<String, String> map = new TreeMap<>();
    for (Map.Entry<String, JsonNode> e : node.properties()) {
      map.put(e.getKey(), e.getValue().asText());
    }
    return map;
  }
}
