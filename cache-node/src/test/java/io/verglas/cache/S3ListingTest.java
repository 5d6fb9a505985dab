package io.verglas.cache;

import static io.verglas.cache.TestingCacheNode.BUCKET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.ListObjectsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

class S3ListingTest extends CacheNodeTestBase {

  /** Writes files straight into the origin directory (fast, and exercises out-of-band files). */
  private List<String> writeDirectly(int count) throws Exception {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String key = (i % 5 == 0 ? "meta/" : "data/p=" + (i % 7) + "/") + String.format("file-%05d", i);
      Path file = dir.resolve(BUCKET).resolve(key);
      Files.createDirectories(file.getParent());
      Files.writeString(file, key);
      keys.add(key);
    }
    keys.sort(null); // ASCII keys: String order is byte order
    return keys;
  }

  @Test
  void paginates2500KeysInKeyOrder() throws Exception {
    List<String> expected = writeDirectly(2500);
    List<String> listed = new ArrayList<>();
    int pages = 0;
    for (ListObjectsV2Response page : t.s3.listObjectsV2Paginator(b -> b.bucket(BUCKET).maxKeys(1000))) {
      pages++;
      assertThat(page.keyCount()).isEqualTo(page.contents().size());
      page.contents().forEach(o -> listed.add(o.key()));
    }
    assertThat(pages).isEqualTo(3);
    assertThat(listed).isEqualTo(expected);

    S3Object first = t.s3.listObjectsV2(b -> b.bucket(BUCKET).maxKeys(1)).contents().get(0);
    String md5 = HexFormat.of().formatHex(MessageDigest.getInstance("MD5")
        .digest(first.key().getBytes(StandardCharsets.UTF_8)));
    assertThat(first.eTag()).isEqualTo('"' + md5 + '"');
    assertThat(first.size()).isEqualTo(first.key().length());
  }

  @Test
  void delimiterPrefixStartAfterAndPagedCommonPrefixes() throws Exception {
    writeDirectly(200);
    ListObjectsV2Response top = t.s3.listObjectsV2(b -> b.bucket(BUCKET).delimiter("/"));
    assertThat(top.contents()).isEmpty();
    assertThat(top.commonPrefixes()).extracting(CommonPrefix::prefix).containsExactly("data/", "meta/");
    assertThat(top.keyCount()).isEqualTo(2);

    ListObjectsV2Response partitions = t.s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("data/").delimiter("/"));
    assertThat(partitions.commonPrefixes()).extracting(CommonPrefix::prefix)
        .containsExactly("data/p=0/", "data/p=1/", "data/p=2/", "data/p=3/", "data/p=4/", "data/p=5/", "data/p=6/");

    // Common prefixes page like keys and are never repeated across pages.
    List<String> paged = new ArrayList<>();
    for (ListObjectsV2Response page : t.s3.listObjectsV2Paginator(
        b -> b.bucket(BUCKET).prefix("data/").delimiter("/").maxKeys(3))) {
      page.commonPrefixes().forEach(p -> paged.add(p.prefix()));
    }
    assertThat(paged).isEqualTo(partitions.commonPrefixes().stream().map(CommonPrefix::prefix).toList());

    ListObjectsV2Response after = t.s3.listObjectsV2(b -> b.bucket(BUCKET).prefix("meta/")
        .startAfter("meta/file-00100").maxKeys(2));
    assertThat(after.contents()).extracting(S3Object::key).containsExactly("meta/file-00105", "meta/file-00110");
    assertThat(after.isTruncated()).isTrue();
  }

  @Test
  void listObjectsV1PagesWithMarkers() throws Exception {
    List<String> expected = writeDirectly(120);
    List<String> listed = new ArrayList<>();
    String marker = null;
    do {
      String m = marker;
      ListObjectsResponse page = t.s3.listObjects(b -> b.bucket(BUCKET).maxKeys(50).marker(m));
      page.contents().forEach(o -> listed.add(o.key()));
      marker = page.isTruncated() ? page.nextMarker() : null;
    } while (marker != null);
    assertThat(listed).isEqualTo(expected);
  }

  @Test
  void specialCharactersSurviveUrlEncodingType() {
    List<String> keys = List.of("sp ace/x", "plus+sign", "pct%41", "ümlaut/ключ", "emoji-\uD83D\uDE00",
        "quote'\"&<>");
    for (String k : keys) {
      t.s3.putObject(b -> b.bucket(BUCKET).key(k), RequestBody.fromString(k));
    }
    List<String> listed = t.s3.listObjectsV2(b -> b.bucket(BUCKET)).contents().stream().map(S3Object::key).toList();
    assertThat(listed).containsExactlyInAnyOrderElementsOf(keys);
    for (String k : keys) {
      assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(k)).asUtf8String()).isEqualTo(k);
    }
  }

  @Test
  void errors() {
    assertThatThrownBy(() -> t.s3.listObjectsV2(b -> b.bucket("missing-bucket")))
        .isInstanceOf(NoSuchBucketException.class);
    assertThatThrownBy(() -> t.s3.listObjectsV2(b -> b.bucket(BUCKET).continuationToken("garbage!")))
        .isInstanceOfSatisfying(S3Exception.class, e -> {
          assertThat(e.statusCode()).isEqualTo(400);
          assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidArgument");
        });
  }
}
