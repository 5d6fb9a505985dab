package io.verglas.cache.origin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.verglas.cache.origin.OriginException.Reason;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Multipart uploads of a {@link LocalDirectoryOrigin}, staged under {@code .verglas/uploads/<id>/}:
 * {@code upload.json} (format version 1: bucket, key, metadata, initiation time) and one file per
 * part, {@code part-00001} and so on. A part's ETag is the MD5 of its content, so it needs no
 * sidecar. Completion streams the listed parts into one temp file, checks each part's ETag on the
 * very handle it copies from, and publishes the result with the S3 multipart ETag
 * (MD5 of the part MD5s, then {@code -N}).
 *
 * <p>Idempotent completion: after publishing, {@code completed.json} (format version 1: the
 * digest of the completed part list, ETag and time) is written into the upload's directory and
 * the rest of it deleted, so a repeated Complete with the same parts (an SDK retry after a lost
 * response) answers the same result, durably, and any other request on the upload answers
 * NoSuchUpload as S3 does. Records older than {@link #COMPLETED_RETENTION} are swept when uploads
 * are created (at most once per sweep interval), which bounds their number.
 */
final class LocalMultipart {
  static final long MIN_PART_SIZE = 5L * 1024 * 1024;
  static final int MAX_PART_NUMBER = 10_000;
  static final int FORMAT_VERSION = 1;
  static final Duration COMPLETED_RETENTION = Duration.ofHours(24);
  private static final long SWEEP_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(10);
  private static final String UPLOAD_FILE = "upload.json";
  private static final String COMPLETED_FILE = "completed.json";
  private static final String PART_PREFIX = "part-";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final LocalLayout layout;
  private final LocalMetadata metadata;
  private final LocalPublisher publisher;
  private final KeyLocks locks = new KeyLocks();
  private final AtomicLong lastSweep =
      new AtomicLong(System.nanoTime() - SWEEP_INTERVAL_NANOS);

  LocalMultipart(LocalLayout layout, LocalMetadata metadata, LocalPublisher publisher) {
    this.layout = layout;
    this.metadata = metadata;
    this.publisher = publisher;
  }

  private record Upload(Path dir, WriteOptions options, Instant initiated) {}

  String create(String bucket, String key, WriteOptions options) throws IOException {
    sweepCompleted();
    layout.objectPath(bucket, key);
    LocalPublisher.requireBucket(bucket, layout.bucketDir(bucket));
    String uploadId = LocalLayout.newUploadId();
    Path dir = layout.uploadDir(uploadId);
    Files.createDirectory(dir);
    ObjectNode node = JSON.createObjectNode();
    node.put("format", FORMAT_VERSION);
    node.put("bucket", bucket);
    node.put("key", key);
    node.put("initiated", Instant.now().toString());
    if (options.contentType() != null) {
      node.put("contentType", options.contentType());
    }
    ObjectNode user = node.putObject("userMetadata");
    new TreeMap<>(options.userMetadata()).forEach(user::put);
    ObjectNode headers = node.putObject("contentHeaders");
    new TreeMap<>(options.contentHeaders()).forEach(headers::put);
    Path tmp = DurableFiles.writeBytesTemp(layout, JSON.writeValueAsBytes(node));
    Files.move(tmp, dir.resolve(UPLOAD_FILE), StandardCopyOption.ATOMIC_MOVE);
    DurableFiles.fsyncDirectory(dir);
    return uploadId;
  }

  String uploadPart(MultipartUpload upload, int partNumber, ObjectBody body) throws IOException {
    checkPartNumber(partNumber);
    Upload staged = load(upload);
    DurableFiles.Written written;
    try (var in = body.openStream()) {
      written = DurableFiles.writeTemp(layout, in);
    }
    Path part = staged.dir().resolve(partName(partNumber));
    try {
      Files.move(written.path(), part, StandardCopyOption.ATOMIC_MOVE);
    } catch (NoSuchFileException e) {
      Files.deleteIfExists(written.path());
      throw noSuchUpload(upload.uploadId());
    }
    DurableFiles.fsyncDirectory(staged.dir());
    String etag = ETags.ofMd5(written.md5());
    FileStamp stamp = FileStamp.read(part);
    if (stamp != null) {
      metadata.remember(part, stamp,
          new ObjectMeta(etag, stamp.size(), stamp.lastModified(), null, Map.of(), Map.of()));
    }
    return etag;
  }

  PutResult complete(MultipartUpload upload, List<CompletedPart> parts, WriteCondition condition)
      throws IOException {
    if (parts.isEmpty()) {
      throw new OriginException(Reason.INVALID_ARGUMENT,
          "Cannot complete upload " + upload.uploadId() + ": no parts were named");
    }
    ReentrantLock lock = locks.lockFor("uploads", upload.uploadId());
    lock.lock();
    try {
      PutResult repeated = completedBefore(upload, parts);
      if (repeated != null) {
        return repeated;
      }
      Upload staged = load(upload);
      for (int i = 1; i < parts.size(); i++) {
        if (parts.get(i).partNumber() <= parts.get(i - 1).partNumber()) {
          throw new OriginException(Reason.INVALID_PART_ORDER,
              "The list of parts was not in ascending order: part " + parts.get(i).partNumber()
                  + " after part " + parts.get(i - 1).partNumber());
        }
      }
      Path temp = layout.newTempFile(".data");
      byte[][] md5s = new byte[parts.size()][];
      List<Long> sizes = new ArrayList<>();
      boolean ok = false;
      try (FileChannel out = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        for (int i = 0; i < parts.size(); i++) {
          long before = out.position();
          md5s[i] = appendPart(staged, parts.get(i), i == parts.size() - 1, out);
          sizes.add(out.position() - before);
        }
        out.force(true);
        ok = true;
      } finally {
        if (!ok) {
          Files.deleteIfExists(temp);
        }
      }
      PutResult result = publisher.publish(upload.bucket(), upload.key(), temp,
          ETags.ofParts(md5s), staged.options().withCondition(condition), sizes);
      recordCompletion(staged.dir(), upload, parts, result);
      return result;
    } finally {
      lock.unlock();
    }
  }

  /** The earlier result of this very completion, or null if the upload was not completed. */
  private PutResult completedBefore(MultipartUpload upload, List<CompletedPart> parts)
      throws IOException {
    Path dir = layout.uploadDir(upload.uploadId());
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(dir.resolve(COMPLETED_FILE));
    } catch (NoSuchFileException e) {
      return null;
    }
    JsonNode node = JSON.readTree(bytes);
    if (node.path("format").asInt(-1) != FORMAT_VERSION) {
      throw new IOException("Cannot read completed upload " + upload.uploadId()
          + ": unknown format version " + node.path("format"));
    }
    if (!upload.bucket().equals(node.path("bucket").asText())
        || !upload.key().equals(node.path("key").asText())
        || !partsDigest(parts).equals(node.path("parts").asText())) {
      throw noSuchUpload(upload.uploadId());
    }
    return new PutResult(node.path("etag").asText(), Instant.parse(node.path("lastModified").asText()));
  }

  private void recordCompletion(Path dir, MultipartUpload upload, List<CompletedPart> parts,
      PutResult result) throws IOException {
    ObjectNode node = JSON.createObjectNode();
    node.put("format", FORMAT_VERSION);
    node.put("bucket", upload.bucket());
    node.put("key", upload.key());
    node.put("parts", partsDigest(parts));
    node.put("etag", result.etag());
    node.put("lastModified", result.lastModified().toString());
    Path tmp = DurableFiles.writeBytesTemp(layout, JSON.writeValueAsBytes(node));
    Files.move(tmp, dir.resolve(COMPLETED_FILE), StandardCopyOption.ATOMIC_MOVE);
    Files.delete(dir.resolve(UPLOAD_FILE));
    DurableFiles.fsyncDirectory(dir);
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, PART_PREFIX + "*")) {
      for (Path p : stream) {
        Files.deleteIfExists(p);
      }
    }
  }

  private static String partsDigest(List<CompletedPart> parts) {
    MessageDigest sha = sha256();
    for (CompletedPart p : parts) {
      sha.update((p.partNumber() + ":" + (p.etag() == null ? "" : ETags.bare(p.etag())) + "\n")
          .getBytes(StandardCharsets.UTF_8));
    }
    return HexFormat.of().formatHex(sha.digest());
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("The JDK has no SHA-256", e);
    }
  }

  /** Deletes completion records past their retention; at most once per sweep interval. */
  private void sweepCompleted() throws IOException {
    long now = System.nanoTime();
    long last = lastSweep.get();
    if (now - last < SWEEP_INTERVAL_NANOS || !lastSweep.compareAndSet(last, now)) {
      return;
    }
    Instant cutoff = Instant.now().minus(COMPLETED_RETENTION);
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(layout.uploads)) {
      for (Path dir : dirs) {
        FileStamp stamp = FileStamp.read(dir.resolve(COMPLETED_FILE));
        if (stamp != null && stamp.lastModified().isBefore(cutoff)) {
          DurableFiles.deleteRecursively(dir);
        }
      }
    }
  }

  private byte[] appendPart(Upload staged, CompletedPart requested, boolean last, FileChannel out)
      throws IOException {
    checkPartNumber(requested.partNumber());
    Path part = staged.dir().resolve(partName(requested.partNumber()));
    try (LocalMetadata.Opened opened = metadata.open(part, null)) {
      if (opened == null) {
        throw new OriginException(Reason.INVALID_PART,
            "One or more of the specified parts could not be found: part "
                + requested.partNumber() + " was not uploaded");
      }
      if (requested.etag() == null || !ETags.matches(opened.meta().etag(), requested.etag())) {
        throw new OriginException(Reason.INVALID_PART,
            "One or more of the specified parts could not be found: part "
                + requested.partNumber() + " has ETag " + opened.meta().etag() + ", not "
                + requested.etag());
      }
      if (!last && opened.stamp().size() < MIN_PART_SIZE) {
        throw new OriginException(Reason.ENTITY_TOO_SMALL,
            "Your proposed upload is smaller than the minimum allowed object size: part "
                + requested.partNumber() + " has " + opened.stamp().size()
                + " bytes, every part but the last needs at least " + MIN_PART_SIZE);
      }
      long position = 0;
      long size = opened.stamp().size();
      while (position < size) {
        position += opened.channel().transferTo(position, size - position, out);
      }
      return HexFormat.of().parseHex(ETags.bare(opened.meta().etag()));
    }
  }

  void abort(MultipartUpload upload) throws IOException {
    ReentrantLock lock = locks.lockFor("uploads", upload.uploadId());
    lock.lock();
    try {
      Upload staged = load(upload);
      DurableFiles.deleteRecursively(staged.dir());
    } finally {
      lock.unlock();
    }
  }

  PartListing listParts(MultipartUpload upload, int marker, int maxParts) throws IOException {
    Upload staged = load(upload);
    List<Integer> numbers = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(staged.dir(), PART_PREFIX + "*")) {
      for (Path p : stream) {
        try {
          int n = Integer.parseInt(p.getFileName().toString().substring(PART_PREFIX.length()));
          if (n > marker) {
            numbers.add(n);
          }
        } catch (NumberFormatException e) {
          // not a part file
        }
      }
    }
    numbers.sort(null);
    List<PartInfo> parts = new ArrayList<>();
    for (int n : numbers) {
      if (parts.size() >= maxParts) {
        break;
      }
      ObjectMeta meta = metadata.current(staged.dir().resolve(partName(n)), null);
      if (meta != null) {
        parts.add(new PartInfo(n, meta.etag(), meta.size(), meta.lastModified()));
      }
    }
    boolean truncated = numbers.size() > parts.size();
    int next = parts.isEmpty() ? marker : parts.get(parts.size() - 1).partNumber();
    return new PartListing(parts, truncated, next);
  }

  /**
   * Uploads in progress in the request's bucket, in key then upload-id order. A directory still
   * being created (no {@code upload.json} yet) is not an upload yet.
   */
  UploadListing listUploads(UploadListRequest request) throws IOException {
    LocalPublisher.requireBucket(request.bucket(), layout.bucketDir(request.bucket()));
    List<UploadListing.Upload> found = new ArrayList<>();
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(layout.uploads)) {
      for (Path dir : dirs) {
        byte[] bytes;
        try {
          bytes = Files.readAllBytes(dir.resolve(UPLOAD_FILE));
        } catch (NoSuchFileException e) {
          continue;
        }
        JsonNode node = JSON.readTree(bytes);
        if (request.bucket().equals(node.path("bucket").asText())) {
          found.add(new UploadListing.Upload(node.path("key").asText(), dir.getFileName().toString(),
              Instant.parse(node.path("initiated").asText())));
        }
      }
    }
    found.sort(Comparator.comparing(UploadListing.Upload::key, KeyOrder::compare)
        .thenComparing(UploadListing.Upload::uploadId));
    return UploadListing.page(found, request);
  }

  private Upload load(MultipartUpload upload) throws IOException {
    Path dir = layout.uploadDir(upload.uploadId());
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(dir.resolve(UPLOAD_FILE));
    } catch (NoSuchFileException e) {
      throw noSuchUpload(upload.uploadId());
    }
    JsonNode node = JSON.readTree(bytes);
    if (node.path("format").asInt(-1) != FORMAT_VERSION) {
      throw new IOException("Cannot read upload " + upload.uploadId()
          + ": unknown format version " + node.path("format"));
    }
    if (!upload.bucket().equals(node.path("bucket").asText())
        || !upload.key().equals(node.path("key").asText())) {
      throw noSuchUpload(upload.uploadId());
    }
    WriteOptions options = new WriteOptions(
        node.path("contentType").asText(null),
        LocalMetadata.stringMap(node.path("userMetadata")),
        LocalMetadata.stringMap(node.path("contentHeaders")),
        WriteCondition.NONE);
    return new Upload(dir, options, Instant.parse(node.path("initiated").asText()));
  }

  private static void checkPartNumber(int partNumber) {
    if (partNumber < 1 || partNumber > MAX_PART_NUMBER) {
      throw new OriginException(Reason.INVALID_ARGUMENT,
          "Part number must be an integer between 1 and " + MAX_PART_NUMBER + ", inclusive: "
              + partNumber);
    }
  }

  private static String partName(int partNumber) {
    return String.format("%s%05d", PART_PREFIX, partNumber);
  }

  private static OriginException noSuchUpload(String uploadId) {
    return new OriginException(Reason.NO_SUCH_UPLOAD,
        "The specified upload does not exist. The upload ID may be invalid, or the upload may"
            + " have been aborted or completed: " + uploadId);
  }
}
