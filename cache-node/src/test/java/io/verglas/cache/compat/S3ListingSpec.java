package io.verglas.cache.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.EncodingType;
import software.amazon.awssdk.services.s3.model.ListObjectsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Directory markers ({@code logs/}, written by Hadoop S3A and consoles) mixed with the keys under
 * them, and keys with a leading or doubled '/', under every listing mode (V1, V2, versions; with
 * and without delimiter; url encoding; pages of one), plus S3's rules for an empty delimiter.
 */
abstract class S3ListingSpec extends S3NodeFixture {
  private static final List<String> KEYS = List.of(
      "dir/", "dir/a", "dir/sub/", "dir/sub/b", "dir/sub/c d", "dir-x", "/lead", "a//b", "top");
  private static final List<String> EMPTY_SEGMENT_KEYS = List.of("/lead", "a//b");

  S3ListingSpec(OriginKind kind) {
    super(kind, "listing");
  }

  @BeforeAll
  void writeKeys() {
    for (String key : KEYS) {
      if (emptySegments() || !EMPTY_SEGMENT_KEYS.contains(key)) {
        put(key, "content of " + key);
      }
    }
  }

  /**
   * Whether the origin takes keys with an empty path segment ({@code /lead}, {@code a//b}). S3 and
   * the local origin do; s3proxy's HTTP server refuses such request paths with 400, so its runs
   * leave these keys out (and the expectations below drop them).
   */
  private boolean emptySegments() {
    return kind == OriginKind.LOCAL;
  }

  private List<String> expected(String... entries) {
    List<String> out = new ArrayList<>();
    for (String e : entries) {
      String key = e.startsWith("P:") ? e.substring(2) : e;
      boolean emptySegment = key.startsWith("/") || key.contains("//") || key.equals("a/");
      if (emptySegments() || !emptySegment) {
        out.add(e);
      }
    }
    return out;
  }

  private static List<String> entries(List<S3Object> objects, List<CommonPrefix> prefixes) {
    List<String> out = new ArrayList<>();
    objects.forEach(o -> out.add(o.key()));
    prefixes.forEach(p -> out.add("P:" + p.prefix()));
    return out;
  }

  @Test
  void markersAreObjectsLikeAnyOther() {
    if (kind == OriginKind.S3PROXY) {
      // s3proxy's file-system store keeps "dir/" as a directory: listed, but served without an
      // ETag, which the node refuses to cache (S3 itself serves markers as objects).
      assertS3Error(() -> s3.headObject(b -> b.bucket(bucket).key("dir/")), 500, null);
      return;
    }
    assertThat(text("dir/")).isEqualTo("content of dir/");
    assertThat(text("dir/sub/")).isEqualTo("content of dir/sub/");
    if (emptySegments()) {
      assertThat(text("/lead")).isEqualTo("content of /lead");
      assertThat(text("a//b")).isEqualTo("content of a//b");
    }
    assertThat(s3.headObject(b -> b.bucket(bucket).key("dir/")).contentLength()).isEqualTo(15L);
  }

  @Test
  void listObjectsV2WithoutDelimiterListsEveryKeyInOrder() {
    ListObjectsV2Response all = s3.listObjectsV2(b -> b.bucket(bucket));
    assertThat(all.contents()).extracting(S3Object::key).containsExactlyElementsOf(expected(
        "/lead", "a//b", "dir-x", "dir/", "dir/a", "dir/sub/", "dir/sub/b", "dir/sub/c d", "top"));
    List<String> paged = new ArrayList<>();
    s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix("dir/").maxKeys(1)).contents()
        .forEach(o -> paged.add(o.key()));
    assertThat(paged).containsExactly("dir/", "dir/a", "dir/sub/", "dir/sub/b", "dir/sub/c d");
  }

  @Test
  void listObjectsV2WithDelimiterRollsUpAtEveryLevel() {
    var top = s3.listObjectsV2(b -> b.bucket(bucket).delimiter("/"));
    assertThat(entries(top.contents(), top.commonPrefixes()))
        .containsExactlyElementsOf(expected("dir-x", "top", "P:/", "P:a/", "P:dir/"));
    var dir = s3.listObjectsV2(b -> b.bucket(bucket).prefix("dir/").delimiter("/"));
    assertThat(entries(dir.contents(), dir.commonPrefixes())).containsExactly("dir/", "dir/a", "P:dir/sub/");
    var sub = s3.listObjectsV2(b -> b.bucket(bucket).prefix("dir/sub/").delimiter("/"));
    assertThat(entries(sub.contents(), sub.commonPrefixes())).containsExactly("dir/sub/", "dir/sub/b", "dir/sub/c d");
    if (emptySegments()) {
      var lead = s3.listObjectsV2(b -> b.bucket(bucket).prefix("/").delimiter("/"));
      assertThat(entries(lead.contents(), lead.commonPrefixes())).containsExactly("/lead");
      var doubled = s3.listObjectsV2(b -> b.bucket(bucket).prefix("a/").delimiter("/"));
      assertThat(entries(doubled.contents(), doubled.commonPrefixes())).containsExactly("P:a//");
    }
    List<String> paged = new ArrayList<>();
    for (var page : s3.listObjectsV2Paginator(b -> b.bucket(bucket).delimiter("/").maxKeys(1))) {
      paged.addAll(entries(page.contents(), page.commonPrefixes()));
    }
    assertThat(paged).containsExactlyElementsOf(expected("P:/", "P:a/", "dir-x", "P:dir/", "top"));
  }

  @Test
  void listObjectsV1AgreesWithV2() {
    ListObjectsResponse top = s3.listObjects(b -> b.bucket(bucket).delimiter("/"));
    assertThat(entries(top.contents(), top.commonPrefixes()))
        .containsExactlyElementsOf(expected("dir-x", "top", "P:/", "P:a/", "P:dir/"));
    assertThat(top.delimiter()).isEqualTo("/");
    ListObjectsResponse dir = s3.listObjects(b -> b.bucket(bucket).prefix("dir/").delimiter("/"));
    assertThat(entries(dir.contents(), dir.commonPrefixes())).containsExactly("dir/", "dir/a", "P:dir/sub/");
    List<String> paged = new ArrayList<>();
    String marker = null;
    do {
      String m = marker;
      ListObjectsResponse page = s3.listObjects(b -> b.bucket(bucket).prefix("dir/").maxKeys(2).marker(m));
      paged.addAll(entries(page.contents(), page.commonPrefixes()));
      // As boto3 pages V1: NextMarker if given, else the last key.
      marker = !page.isTruncated() ? null
          : page.nextMarker() != null ? page.nextMarker() : page.contents().get(page.contents().size() - 1).key();
    } while (marker != null);
    assertThat(paged).containsExactly("dir/", "dir/a", "dir/sub/", "dir/sub/b", "dir/sub/c d");
  }

  @Test
  void listObjectVersionsShowsMarkersAsCurrentVersions() {
    var versions = s3.listObjectVersions(b -> b.bucket(bucket).prefix("dir/").delimiter("/"));
    assertThat(versions.versions()).extracting(v -> v.key() + " " + v.versionId())
        .containsExactly("dir/ null", "dir/a null");
    assertThat(versions.commonPrefixes()).extracting(CommonPrefix::prefix).containsExactly("dir/sub/");
  }

  @Test
  void urlEncodingTypeEncodesKeysPrefixesAndDelimiter() throws Exception {
    // The SDK decodes what it asked to have encoded: the keys come back as written.
    var v2 = s3.listObjectsV2(b -> b.bucket(bucket).prefix("dir/sub/").encodingType(EncodingType.URL));
    assertThat(v2.contents()).extracting(S3Object::key).containsExactly("dir/sub/", "dir/sub/b", "dir/sub/c d");
    if (kind == OriginKind.LOCAL) {
      // s3proxy refuses delimiters other than '/' (400), so only the local run tries ' '.
      var raw = raw("GET", "/" + bucket + "?list-type=2&prefix=dir%2Fsub%2F&delimiter=%20&encoding-type=url", Map.of(), new byte[0]);
      assertThat(raw.status()).as(raw.text()).isEqualTo(200);
      assertThat(raw.text()).contains("<Key>dir/sub/b</Key>", "<Delimiter>%20</Delimiter>",
          "<EncodingType>url</EncodingType>", "<CommonPrefixes><Prefix>dir/sub/c%20</Prefix></CommonPrefixes>");
    }
    var v1 = raw("GET", "/" + bucket + "?prefix=dir%2Fsub%2F&delimiter=%2F&encoding-type=url", Map.of(), new byte[0]);
    assertThat(v1.text()).contains("<Delimiter>/</Delimiter>", "<Key>dir/sub/c%20d</Key>");
  }

  @Test
  void anEmptyDelimiterIsNoDelimiterAndIsNotEchoed() throws Exception {
    for (String query : List.of("?list-type=2&prefix=dir%2F&delimiter=", "?prefix=dir%2F&delimiter=")) {
      var response = raw("GET", "/" + bucket + query, Map.of(), new byte[0]);
      assertThat(response.status()).isEqualTo(200);
      assertThat(response.text()).doesNotContain("<Delimiter").doesNotContain("<CommonPrefixes>")
          .contains("<Key>dir/sub/b</Key>");
    }
    var sdk = s3.listObjectsV2(b -> b.bucket(bucket).prefix("dir/").delimiter(""));
    assertThat(sdk.delimiter()).isNull();
    assertThat(sdk.contents()).hasSize(5);
  }
}
