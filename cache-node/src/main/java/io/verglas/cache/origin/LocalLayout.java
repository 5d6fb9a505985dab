package io.verglas.cache.origin;

import io.verglas.cache.origin.OriginException.Reason;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Where a {@link LocalDirectoryOrigin} keeps things under its root:
 *
 * <pre>
 *   root/&lt;bucket&gt;/&lt;key&gt;                      object content, key = relative path
 *   root/.verglas/tmp/                        temp files, renamed into place atomically
 *   root/.verglas/meta/&lt;bucket&gt;/&lt;h2&gt;/&lt;h&gt;.json   sidecar of a key (h = sha256 of the key)
 *   root/.verglas/uploads/&lt;uploadId&gt;/         multipart staging (never listed)
 * </pre>
 *
 * Sidecars live in a flat hashed tree rather than next to the objects so that no key can collide
 * with a sidecar name. {@code .verglas} can never be a bucket (bucket names start with a letter or
 * digit).
 *
 * <p>Keys map to paths one to one, segment by segment ({@code /} separates segments). A segment is
 * its own file name, except that an empty segment is stored as {@value #ESCAPE} and a segment
 * starting with {@value #ESCAPE} gets one more {@value #ESCAPE} in front. So a directory marker
 * {@code logs/} is the file {@code logs/%%} and coexists with {@code logs/a} (the file
 * {@code logs/a}); {@code /a} is {@code %%/a}; {@code a//b} is {@code a/%%/b}. Every name that
 * does not start with {@value #ESCAPE} stands for itself, so data directories written before the
 * escape existed read as they did (a name starting with {@code %%} would now lose that prefix; no
 * URL encoder produces one, as it spells {@code %} as {@code %25}). Still refused: {@code .} and
 * {@code ..} segments, NUL and unpaired surrogates, a key that is also a directory of other keys
 * without a {@code /} ({@code a} beside {@code a/b}; {@code a/} beside {@code a/b} is fine).
 */
final class LocalLayout {
  static final String INTERNAL_DIR = ".verglas";
  /** The file name prefix that marks an escaped key segment (see the class comment). */
  static final String ESCAPE = "%%";
  static final int MAX_KEY_BYTES = 1024;
  private static final int MAX_NAME_BYTES = 255;
  private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");
  private static final Pattern UPLOAD_ID = Pattern.compile("[0-9a-f]{32}");

  final Path root;
  final Path tmp;
  final Path meta;
  final Path uploads;

  LocalLayout(Path root) {
    this.root = root.toAbsolutePath().normalize();
    Path internal = this.root.resolve(INTERNAL_DIR);
    this.tmp = internal.resolve("tmp");
    this.meta = internal.resolve("meta");
    this.uploads = internal.resolve("uploads");
    try {
      Files.createDirectories(tmp);
      Files.createDirectories(meta);
      Files.createDirectories(uploads);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create the origin layout under " + this.root, e);
    }
  }

  static boolean isValidBucketName(String bucket) {
    return bucket != null && BUCKET.matcher(bucket).matches() && !bucket.contains("..");
  }

  static void checkBucketName(String bucket) {
    if (!isValidBucketName(bucket)) {
      throw new OriginException(
          Reason.INVALID_BUCKET_NAME, "The specified bucket is not valid: " + bucket);
    }
  }

  Path bucketDir(String bucket) {
    checkBucketName(bucket);
    return root.resolve(bucket);
  }

  Path objectPath(String bucket, String key) {
    Path dir = bucketDir(bucket);
    checkKey(key);
    try {
      Path path = dir;
      for (String segment : key.split("/", -1)) {
        path = path.resolve(fileName(segment));
      }
      return path;
    } catch (InvalidPathException e) {
      throw new OriginException(
          Reason.INVALID_KEY,
          "Cannot map key '" + key + "' to a file name (the JVM file name encoding is "
              + System.getProperty("sun.jnu.encoding") + ", UTF-8 is needed)",
          e);
    }
  }

  Path sidecarPath(String bucket, String key) {
    String hash = sha256Hex(key);
    return meta.resolve(bucket).resolve(hash.substring(0, 2)).resolve(hash + ".json");
  }

  Path bucketMetaDir(String bucket) {
    return meta.resolve(bucket);
  }

  Path uploadDir(String uploadId) {
    if (uploadId == null || !UPLOAD_ID.matcher(uploadId).matches()) {
      throw new OriginException(
          Reason.NO_SUCH_UPLOAD, "The specified upload does not exist: " + uploadId);
    }
    return uploads.resolve(uploadId);
  }

  static String newUploadId() {
    return UUID.randomUUID().toString().replace("-", "");
  }

  Path newTempFile(String suffix) {
    return tmp.resolve(UUID.randomUUID() + suffix);
  }

  /** The file name of one key segment. */
  static String fileName(String segment) {
    return segment.isEmpty() || segment.startsWith(ESCAPE) ? ESCAPE + segment : segment;
  }

  /** The key segment a file name stands for. */
  static String segmentOf(String fileName) {
    return fileName.startsWith(ESCAPE) ? fileName.substring(ESCAPE.length()) : fileName;
  }

  /** The key of a file found under a bucket directory. */
  static String keyOf(Path bucketDir, Path file) {
    StringBuilder key = new StringBuilder();
    boolean first = true;
    for (Path part : bucketDir.relativize(file)) {
      if (!first) {
        key.append('/');
      }
      first = false;
      key.append(segmentOf(part.toString()));
    }
    return key.toString();
  }

  static void checkKey(String key) {
    if (key == null || key.isEmpty()) {
      throw invalidKey(key, "the key is empty");
    }
    byte[] utf8 = strictUtf8(key);
    if (utf8.length > MAX_KEY_BYTES) {
      throw new OriginException(
          Reason.KEY_TOO_LONG,
          "Your key is too long: " + utf8.length + " bytes (at most " + MAX_KEY_BYTES + ")");
    }
    if (key.indexOf('\0') >= 0) {
      throw invalidKey(key, "it contains NUL");
    }
    for (String segment : key.split("/", -1)) {
      if (segment.equals(".") || segment.equals("..")) {
        throw invalidKey(key, "'.' and '..' segments are not allowed");
      }
      if (fileName(segment).getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
        throw new OriginException(
            Reason.KEY_TOO_LONG,
            "Cannot store key '" + key + "': a path segment is longer than " + MAX_NAME_BYTES
                + " bytes");
      }
    }
  }

  private static byte[] strictUtf8(String key) {
    CharsetEncoder encoder = StandardCharsets.UTF_8.newEncoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      ByteBuffer bytes = encoder.encode(CharBuffer.wrap(key));
      byte[] out = new byte[bytes.remaining()];
      bytes.get(out);
      return out;
    } catch (CharacterCodingException e) {
      throw invalidKey(key, "it is not valid Unicode (unpaired surrogate)");
    }
  }

  private static OriginException invalidKey(String key, String why) {
    return new OriginException(Reason.INVALID_KEY, "Invalid key '" + key + "': " + why);
  }

  private static String sha256Hex(String key) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(sha.digest(key.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("The JDK has no SHA-256", e);
    }
  }
}
