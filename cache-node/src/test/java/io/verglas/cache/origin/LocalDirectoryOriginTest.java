package io.verglas.cache.origin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalDirectoryOriginTest {
  @TempDir Path root;
  LocalDirectoryOrigin origin;

  @BeforeEach
  void open() {
    origin = new LocalDirectoryOrigin(root);
    origin.createBucket("bkt").join();
  }

  @AfterEach
  void close() {
    origin.close();
  }

  private static ObjectBody body(String s) {
    return ObjectBody.ofBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  private static OriginException.Reason reasonOf(Throwable e) {
    Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    return t instanceof OriginException o ? o.reason() : null;
  }

  private static void assertReason(CompletableFuture<?> f, OriginException.Reason reason) {
    assertThatThrownBy(f::join).satisfies(e -> assertThat(reasonOf(e)).isEqualTo(reason));
  }

  @Test
  void aWrittenObjectCostsNoMemoUntilItIsReadAndReadsBackItsETag() {
    String key = "ns/t/metadata/00000-a.metadata.json";
    String etag = origin.put("bkt", key, body("{\"format-version\":3}"), WriteOptions.DEFAULT)
        .join().etag();
    assertThat(origin.memoized()).isZero();

    assertThat(origin.head("bkt", key).join().etag()).isEqualTo(etag);
    assertThat(origin.memoized()).isEqualTo(1);
    String second = origin.put("bkt", key, body("{}"), WriteOptions.DEFAULT).join().etag();
    assertThat(origin.memoized()).isZero(); // the first version's memo is dropped
    assertThat(origin.head("bkt", key).join().etag()).isEqualTo(second).isNotEqualTo(etag);
  }

  @Test
  void keysThatDoNotMapOneToOneAreRefused() {
    for (String key : List.of("../x", "a/../x", "a/./x", "..", "nul\0byte",
        "bad\uD800surrogate")) {
      assertReason(origin.put("bkt", key, body("x"), WriteOptions.DEFAULT), OriginException.Reason.INVALID_KEY);
    }
    assertReason(origin.put("bkt", "k".repeat(1025), body("x"), WriteOptions.DEFAULT),
        OriginException.Reason.KEY_TOO_LONG);
    assertReason(origin.put("Bad_Bucket", "k", body("x"), WriteOptions.DEFAULT),
        OriginException.Reason.INVALID_BUCKET_NAME);
    assertReason(origin.put("other", "k", body("x"), WriteOptions.DEFAULT), OriginException.Reason.NO_SUCH_BUCKET);
    try (var files = Files.walk(root)) {
      assertThat(files.filter(Files::isRegularFile).filter(p -> !p.startsWith(root.resolve(".verglas"))))
          .isEmpty();
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aKeyCannotAlsoBeADirectoryOfKeys() {
    origin.put("bkt", "a/b", body("x"), WriteOptions.DEFAULT).join();
    assertThatThrownBy(() -> origin.put("bkt", "a/b/c", body("y"), WriteOptions.DEFAULT).join())
        .satisfies(e -> assertThat(reasonOf(e)).isEqualTo(OriginException.Reason.INVALID_KEY))
        .hasMessageContaining("'a/b' exists");
    origin.put("bkt", "d/e/f", body("x"), WriteOptions.DEFAULT).join();
    assertReason(origin.put("bkt", "d/e", body("y"), WriteOptions.DEFAULT), OriginException.Reason.INVALID_KEY);
    assertThat(origin.head("bkt", "a/b").join().size()).isEqualTo(1);
  }

  @Test
  void readRangeIsPinnedToTheEtag() {
    PutResult v1 = origin.put("bkt", "k", body("version-one"), WriteOptions.DEFAULT).join();
    assertThat(new String(origin.readRange("bkt", "k", v1.etag(), 8, 3).join(), StandardCharsets.UTF_8))
        .isEqualTo("one");
    origin.put("bkt", "k", body("version-two"), WriteOptions.DEFAULT).join();
    assertReason(origin.readRange("bkt", "k", v1.etag(), 8, 3), OriginException.Reason.PRECONDITION_FAILED);
    assertReason(origin.readRange("bkt", "missing", v1.etag(), 0, 1), OriginException.Reason.NO_SUCH_KEY);
  }

  @Test
  void conditionalPutIsAtomicAcrossConcurrentWriters() throws Exception {
    int writers = 16;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    CyclicBarrier start = new CyclicBarrier(writers);
    List<Future<Boolean>> results = new ArrayList<>();
    try {
      for (int i = 0; i < writers; i++) {
        int n = i;
        results.add(pool.submit(() -> {
          start.await();
          try {
            origin.put("bkt", "lease", body("owner-" + n),
                WriteOptions.DEFAULT.withCondition(WriteCondition.ifNoneMatchAny())).join();
            return true;
          } catch (CompletionException e) {
            assertThat(reasonOf(e)).isEqualTo(OriginException.Reason.PRECONDITION_FAILED);
            return false;
          }
        }));
      }
      int winners = 0;
      for (Future<Boolean> r : results) {
        winners += r.get() ? 1 : 0;
      }
      assertThat(winners).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
    ObjectMeta meta = origin.head("bkt", "lease").join();
    assertReason(origin.put("bkt", "lease", body("x"),
        WriteOptions.DEFAULT.withCondition(WriteCondition.ifMatch("\"nope\""))), OriginException.Reason.PRECONDITION_FAILED);
    origin.put("bkt", "lease", body("renewed"), WriteOptions.DEFAULT.withCondition(WriteCondition.ifMatch(meta.etag()))).join();
    assertReason(origin.delete("bkt", "lease", WriteCondition.ifMatch(meta.etag())), OriginException.Reason.PRECONDITION_FAILED);
  }

  @Test
  void metadataSurvivesAReopenAndOutOfBandFilesGetTheirMd5() throws Exception {
    origin.put("bkt", "m", body("hello"), new WriteOptions("text/plain", Map.of("owner", "ada"),
        Map.of("cache-control", "no-cache"), WriteCondition.NONE)).join();
    Files.writeString(root.resolve("bkt").resolve("dropped.txt"), "hello");
    origin.close();
    origin = new LocalDirectoryOrigin(root);
    ObjectMeta m = origin.head("bkt", "m").join();
    assertThat(m.contentType()).isEqualTo("text/plain");
    assertThat(m.userMetadata()).containsEntry("owner", "ada");
    assertThat(m.contentHeaders()).containsEntry("cache-control", "no-cache");
    ObjectMeta dropped = origin.head("bkt", "dropped.txt").join();
    assertThat(dropped.etag()).isEqualTo("\"5d41402abc4b2a76b9719d911017c592\"").isEqualTo(m.etag());
    assertThat(dropped.contentType()).isEqualTo(ObjectMeta.DEFAULT_CONTENT_TYPE);
    // Replacing the file behind the origin's back invalidates the sidecar (new inode and size).
    Files.writeString(root.resolve("bkt").resolve("m"), "changed!");
    ObjectMeta changed = origin.head("bkt", "m").join();
    assertThat(changed.etag()).isNotEqualTo(m.etag());
    assertThat(changed.userMetadata()).isEmpty();
  }

  @Test
  void sidecarFormatVersion1GoldenFile() throws Exception {
    byte[] golden;
    try (InputStream in = getClass().getResourceAsStream("sidecar-v1.json")) {
      golden = in.readAllBytes();
    }
    LocalMetadata.Stamped decoded = LocalMetadata.decodeSidecar(golden);
    assertThat(decoded.stamp()).isEqualTo(new FileStamp(5, 1700000000123456789L, 4242));
    assertThat(decoded.meta().etag()).isEqualTo("\"5d41402abc4b2a76b9719d911017c592\"");
    assertThat(decoded.meta().lastModified()).isEqualTo(Instant.parse("2023-11-14T22:13:20.123456789Z"));
    assertThat(decoded.meta().userMetadata()).containsExactly(Map.entry("a", "1"), Map.entry("owner", "ada"));
    assertThat(LocalMetadata.encodeSidecar(decoded.stamp(), decoded.meta())).isEqualTo(golden);
    assertThat(LocalMetadata.decodeSidecar(new String(golden, StandardCharsets.UTF_8)
        .replace("\"format\":1", "\"format\":2").getBytes(StandardCharsets.UTF_8))).isNull();
  }

  @Test
  void multipartEtagAndStagingStayInvisible() {
    String id = origin.createMultipartUpload("bkt", "mp", WriteOptions.DEFAULT).join();
    byte[] p1 = new byte[(int) LocalMultipart.MIN_PART_SIZE];
    String e1 = origin.uploadPart(new MultipartUpload("bkt", "mp", id), 1, ObjectBody.ofBytes(p1)).join();
    String e2 = origin.uploadPart(new MultipartUpload("bkt", "mp", id), 2, body("tail")).join();
    assertThat(origin.list(new ListRequest("bkt", "", null, null, null, 100)).join().objects()).isEmpty();
    assertReason(origin.completeMultipartUpload(new MultipartUpload("bkt", "other-key", id),
        List.of(new CompletedPart(1, e1)), WriteCondition.NONE), OriginException.Reason.NO_SUCH_UPLOAD);
    PutResult done = origin.completeMultipartUpload(new MultipartUpload("bkt", "mp", id),
        List.of(new CompletedPart(1, e1), new CompletedPart(2, e2)), WriteCondition.NONE).join();
    byte[][] md5s = {
      ETags.newMd5().digest(p1), ETags.newMd5().digest("tail".getBytes(StandardCharsets.UTF_8))
    };
    assertThat(done.etag()).isEqualTo(ETags.ofParts(md5s)).endsWith("-2\"");
    assertThat(origin.head("bkt", "mp").join().etag()).isEqualTo(done.etag());
    assertThat(origin.head("bkt", "mp").join().size()).isEqualTo(p1.length + 4);
    // Reopened: the multipart ETag comes from the sidecar, not from the content's MD5.
    origin.close();
    origin = new LocalDirectoryOrigin(root);
    assertThat(origin.head("bkt", "mp").join().etag()).isEqualTo(done.etag());
  }

  @Test
  void deleteRemovesEmptyDirectoriesAndBucketsMustBeEmpty() {
    origin.put("bkt", "x/y/z", body("1"), WriteOptions.DEFAULT).join();
    assertReason(origin.deleteBucket("bkt"), OriginException.Reason.BUCKET_NOT_EMPTY);
    origin.delete("bkt", "x/y/z", WriteCondition.NONE).join();
    assertThat(Files.exists(root.resolve("bkt/x"))).isFalse();
    origin.delete("bkt", "x/y/z", WriteCondition.NONE).join(); // idempotent
    assertReason(origin.createBucket("bkt"), OriginException.Reason.BUCKET_ALREADY_OWNED);
    origin.deleteBucket("bkt").join();
    assertThat(origin.bucketExists("bkt").join()).isFalse();
    assertThat(origin.listBuckets().join()).isEmpty();
  }

  @Test
  void concurrentPutsAndDeletesInOneDirectoryAllSucceed() {
    for (int round = 0; round < 20; round++) {
      for (int i = 0; i < 8; i++) {
        origin.put("bkt", "dir/sub/" + i, body("x"), WriteOptions.DEFAULT).join();
      }
      List<CompletableFuture<?>> ops = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        ops.add(origin.delete("bkt", "dir/sub/" + i, WriteCondition.NONE));
        ops.add(origin.put("bkt", "dir/sub/new-" + round + "-" + i, body("y"), WriteOptions.DEFAULT));
      }
      ops.forEach(CompletableFuture::join);
      for (int i = 0; i < 8; i++) {
        assertThat(origin.head("bkt", "dir/sub/new-" + round + "-" + i).join().size()).isEqualTo(1);
        origin.delete("bkt", "dir/sub/new-" + round + "-" + i, WriteCondition.NONE).join();
      }
      assertThat(Files.exists(root.resolve("bkt/dir"))).isFalse();
    }
  }

  @Test
  void copyPinsTheSourceEtag() {
    PutResult src = origin.put("bkt", "src", body("data"), WriteOptions.DEFAULT).join();
    assertReason(origin.copy(new CopyRequest("bkt", "src", null, "\"other\"", "bkt", "dst", null, WriteCondition.NONE)),
        OriginException.Reason.PRECONDITION_FAILED);
    origin.copy(new CopyRequest("bkt", "src", null, src.etag(), "bkt", "dst", null, WriteCondition.NONE)).join();
    assertThat(origin.head("bkt", "dst").join().etag()).isEqualTo(src.etag());
    assertReason(origin.copy(new CopyRequest("bkt", "src", "v7", null, "bkt", "dst2", null, WriteCondition.NONE)),
        OriginException.Reason.INVALID_ARGUMENT);
  }
}
