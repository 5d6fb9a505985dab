package io.verglas.cache.origin;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keys ending or starting with '/' (directory markers such as {@code logs/}) on the local
 * directory origin: stored beside the keys under them, listed in S3 order, and a data directory
 * laid out before the escape existed reads as it did.
 */
class LocalDirectoryMarkerTest {
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

  private void put(String key) {
    origin.put("bkt", key, ObjectBody.ofBytes(key.getBytes(StandardCharsets.UTF_8)), WriteOptions.DEFAULT).join();
  }

  private List<String> keys(String prefix, String delimiter) {
    ListPage page = origin.list(new ListRequest("bkt", prefix, delimiter, null, null, 1000)).join();
    List<String> out = new java.util.ArrayList<>();
    page.objects().forEach(o -> out.add(o.key()));
    page.commonPrefixes().forEach(p -> out.add("P:" + p));
    return out;
  }

  @Test
  void markersCoexistWithTheKeysUnderThem() {
    for (String key : List.of("logs/", "logs/a", "logs/sub/", "logs/sub/b", "/lead", "/", "a//b", "%%odd", "x")) {
      put(key);
    }
    assertThat(origin.head("bkt", "logs/").join().size()).isEqualTo(5);
    assertThat(new String(origin.readRange("bkt", "logs/", origin.head("bkt", "logs/").join().etag(), 0, 5).join(),
        StandardCharsets.UTF_8)).isEqualTo("logs/");
    assertThat(keys("", null)).containsExactly("%%odd", "/", "/lead", "a//b", "logs/", "logs/a", "logs/sub/",
        "logs/sub/b", "x");
    assertThat(keys("", "/")).containsExactly("%%odd", "x", "P:/", "P:a/", "P:logs/");
    assertThat(keys("logs/", "/")).containsExactly("logs/", "logs/a", "P:logs/sub/");
    assertThat(keys("logs/sub/", "/")).containsExactly("logs/sub/", "logs/sub/b");
    // On disk: the marker is an escaped file inside the directory of the keys under it.
    assertThat(root.resolve("bkt/logs/%%")).isRegularFile();
    assertThat(root.resolve("bkt/logs/a")).isRegularFile();
    assertThat(root.resolve("bkt/%%/lead")).isRegularFile();
    assertThat(root.resolve("bkt/%%%%odd")).isRegularFile();

    origin.delete("bkt", "logs/", WriteCondition.NONE).join();
    assertThat(keys("logs/", null)).containsExactly("logs/a", "logs/sub/", "logs/sub/b");
    origin.delete("bkt", "logs/a", WriteCondition.NONE).join();
    origin.delete("bkt", "logs/sub/b", WriteCondition.NONE).join();
    assertThat(keys("logs/", null)).containsExactly("logs/sub/");
    origin.delete("bkt", "logs/sub/", WriteCondition.NONE).join();
    assertThat(root.resolve("bkt/logs")).doesNotExist();
  }

  @Test
  void aDataDirectoryFromBeforeTheEscapeReadsAsItDid() throws Exception {
    // Laid out as earlier versions did: every key segment is its own file name, '%' included.
    Path bucket = root.resolve("bkt");
    for (String key : List.of("db/t/data/date%3D2024-01-01/f.parquet", "a-b", "a/b/c", "100%/x")) {
      Path file = bucket.resolve(key);
      Files.createDirectories(file.getParent());
      Files.writeString(file, key);
    }
    assertThat(keys("", null)).containsExactly("100%/x", "a-b", "a/b/c", "db/t/data/date%3D2024-01-01/f.parquet");
    for (String key : keys("", null)) {
      ObjectMeta meta = origin.head("bkt", key).join();
      assertThat(new String(origin.readRange("bkt", key, meta.etag(), 0, (int) meta.size()).join(),
          StandardCharsets.UTF_8)).isEqualTo(key);
    }
    // Writes of such keys land on the same paths as before.
    put("db/t/data/date%3D2024-01-02/g.parquet");
    assertThat(bucket.resolve("db/t/data/date%3D2024-01-02/g.parquet")).isRegularFile();
  }
}
