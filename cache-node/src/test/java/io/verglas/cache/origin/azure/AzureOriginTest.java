package io.verglas.cache.origin.azure;

import static io.verglas.cache.origin.azure.AzureTesting.assertReason;
import static io.verglas.cache.origin.azure.AzureTesting.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.compat.OriginContract;
import io.verglas.cache.origin.CompletedPart;
import io.verglas.cache.origin.CopyRequest;
import io.verglas.cache.origin.ListPage;
import io.verglas.cache.origin.ListRequest;
import io.verglas.cache.origin.ListedObject;
import io.verglas.cache.origin.MultipartUpload;
import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.OriginException.Reason;
import io.verglas.cache.origin.WriteCondition;
import io.verglas.cache.origin.WriteOptions;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link AzureOrigin} directly against Azurite: the origin contract every origin passes, and what
 * is particular to the mapping onto blobs.
 */
class AzureOriginTest extends OriginContract {
  @RegisterExtension static final AzuriteExtension AZURITE = new AzuriteExtension();

  @Override
  protected Origin newOrigin() {
    return AZURITE.sharedKeyOrigin();
  }

  @Test
  void rangeReadsArePinnedToAnEtagEvenWhenTheContentIsRewrittenUnchanged() {
    String v1 = origin.put("bkt", "same", body("version-1"), WriteOptions.DEFAULT).join().etag();
    assertThat(v1).startsWith("\"").endsWith("\"");
    assertThat(origin.head("bkt", "same").join().etag()).isEqualTo(v1);
    assertThat(text(origin.readRange("bkt", "same", v1, 8, 1).join())).isEqualTo("1");
    // the same bytes again are a new version: Azure's ETag changes, an MD5 would not
    String v2 = origin.put("bkt", "same", body("version-1"), WriteOptions.DEFAULT).join().etag();
    assertThat(v2).isNotEqualTo(v1);
    assertReason(origin.readRange("bkt", "same", v1, 0, 4), Reason.PRECONDITION_FAILED);
    assertThat(text(origin.readRange("bkt", "same", v2, 0, 7).join())).isEqualTo("version");
  }

  @Test
  void metadataRoundTripsWithNamesAzureWouldRefuse() {
    Map<String, String> user = Map.of("owner", "me", "x-trace-id", "t1", "9lives", "yes", "snake_case", "s");
    Map<String, String> headers = Map.of("cache-control", "max-age=60", "content-disposition", "inline",
        "content-encoding", "identity", "content-language", "de", "expires", "Thu, 01 Dec 2044 16:00:00 GMT");
    origin.put("bkt", "escaped", body("x"), new WriteOptions("text/plain", user, headers, WriteCondition.NONE)).join();
    ObjectMeta meta = origin.head("bkt", "escaped").join();
    assertThat(meta.contentType()).isEqualTo("text/plain");
    assertThat(meta.userMetadata()).isEqualTo(user);
    assertThat(meta.contentHeaders()).isEqualTo(headers);
    origin.put("bkt", "plain", body("x"), WriteOptions.DEFAULT).join();
    assertThat(origin.head("bkt", "plain").join().contentType()).isEqualTo(ObjectMeta.DEFAULT_CONTENT_TYPE);
  }

  @Test
  void emptyObjectsAndEmptyParts() {
    String etag = origin.put("bkt", "empty", body(""), WriteOptions.DEFAULT).join().etag();
    assertThat(origin.head("bkt", "empty").join().size()).isZero();
    assertThat(origin.readRange("bkt", "empty", etag, 0, 0).join()).isEmpty();
    MultipartUpload upload = new MultipartUpload("bkt", "empty-mp",
        origin.createMultipartUpload("bkt", "empty-mp", WriteOptions.DEFAULT).join());
    String part = origin.uploadPart(upload, 1, body("")).join();
    origin.completeMultipartUpload(upload, List.of(new CompletedPart(1, part)),
        WriteCondition.NONE).join();
    assertThat(origin.head("bkt", "empty-mp").join().size()).isZero();
  }

  @Test
  void conditionalWritesAndDeletes() {
    String first = origin.put("bkt", "c", body("first"), options(WriteCondition.ifNoneMatchAny())).join().etag();
    assertReason(origin.put("bkt", "c", body("second"), options(WriteCondition.ifNoneMatchAny())),
        Reason.PRECONDITION_FAILED);
    String third = origin.put("bkt", "c", body("third"), options(WriteCondition.ifMatch(first))).join().etag();
    assertReason(origin.put("bkt", "c", body("fourth"), options(WriteCondition.ifMatch(first))),
        Reason.PRECONDITION_FAILED);
    assertThat(text(origin.readRange("bkt", "c", third, 0, 5).join())).isEqualTo("third");
    assertReason(origin.delete("bkt", "c", WriteCondition.ifMatch(first)), Reason.PRECONDITION_FAILED);
    origin.delete("bkt", "c", WriteCondition.ifMatch(third)).join();
    assertReason(origin.head("bkt", "c"), Reason.NO_SUCH_KEY);
    origin.delete("bkt", "c", WriteCondition.NONE).join();   // a missing key deletes fine
  }

  @Test
  void copyPinsTheSourceEtagAndReplacesMetadata() {
    String src = origin.put("bkt", "src", body("payload"), new WriteOptions("text/csv", Map.of("a", "1"),
        Map.of(), WriteCondition.NONE)).join().etag();
    String copied = origin.copy(new CopyRequest("bkt", "src", null, src, "bkt", "dst", null, null)).join().etag();
    ObjectMeta dst = origin.head("bkt", "dst").join();
    assertThat(dst.etag()).isEqualTo(copied);
    assertThat(dst.contentType()).isEqualTo("text/csv");
    assertThat(dst.userMetadata()).containsEntry("a", "1");

    WriteOptions replacement = new WriteOptions("text/plain", Map.of("b-c", "2"), Map.of(), WriteCondition.NONE);
    String replaced = origin.copy(new CopyRequest("bkt", "src", null, null, "bkt", "dst2", replacement, null))
        .join().etag();
    ObjectMeta dst2 = origin.head("bkt", "dst2").join();
    assertThat(dst2.etag()).isEqualTo(replaced);
    assertThat(dst2.contentType()).isEqualTo("text/plain");
    assertThat(dst2.userMetadata()).isEqualTo(Map.of("b-c", "2"));
    assertThat(text(origin.readRange("bkt", "dst2", replaced, 0, 7).join())).isEqualTo("payload");

    // a copy onto itself replaces the metadata (S3's way to change it)
    String self = origin.copy(new CopyRequest("bkt", "src", null, src, "bkt", "src", replacement, null)).join().etag();
    assertThat(origin.head("bkt", "src").join().userMetadata()).isEqualTo(Map.of("b-c", "2"));
    assertThat(text(origin.readRange("bkt", "src", self, 0, 7).join())).isEqualTo("payload");

    origin.put("bkt", "src", body("changed"), WriteOptions.DEFAULT).join();
    assertReason(origin.copy(new CopyRequest("bkt", "src", null, src, "bkt", "dst3", null, null)),
        Reason.PRECONDITION_FAILED);
    assertReason(origin.copy(new CopyRequest("bkt", "src", null, null, "bkt", "dst", null,
        WriteCondition.ifNoneMatchAny())), Reason.PRECONDITION_FAILED);
    assertReason(origin.copy(new CopyRequest("bkt", "missing", null, null, "bkt", "dst4", null, null)),
        Reason.NO_SUCH_KEY);
  }

  @Test
  void listingsPageWithTokensStartAfterAndDelimiter() {
    origin.createBucket("lst").join();
    List<String> keys = List.of("a/1", "a/2", "b/1", "c", "d", "e");
    for (String key : keys) {
      origin.put("lst", key, body(key), WriteOptions.DEFAULT).join();
    }
    ListPage top = origin.list(new ListRequest("lst", "", "/", null, null, 1000)).join();
    assertThat(top.objects()).extracting(ListedObject::key).containsExactly("c", "d", "e");
    assertThat(top.commonPrefixes()).containsExactly("a/", "b/");
    assertThat(top.objects().get(0).etag()).isEqualTo(origin.head("lst", "c").join().etag());

    List<String> paged = new ArrayList<>();
    String token = null;
    do {
      ListPage page = origin.list(new ListRequest("lst", "", null, "a/2", token, 2)).join();
      page.objects().forEach(o -> paged.add(o.key()));
      token = page.nextContinuationToken();
    } while (token != null);
    assertThat(paged).containsExactly("b/1", "c", "d", "e");
    assertReason(origin.list(new ListRequest("lst", "", null, null, "not-a-token", 2)), Reason.INVALID_ARGUMENT);
  }

  @Test
  void reservedNamesAreNeitherKeysNorListed() {
    origin.createBucket("rsv").join();
    origin.put("rsv", "k", body("x"), WriteOptions.DEFAULT).join();
    origin.createMultipartUpload("rsv", "k2", WriteOptions.DEFAULT).join();
    assertReason(origin.put("rsv", ".verglas/uploads/x", body("x"), WriteOptions.DEFAULT), Reason.INVALID_KEY);
    assertReason(origin.head("rsv", ".verglas/uploads/x"), Reason.INVALID_KEY);
    assertReason(origin.createMultipartUpload("rsv", ".verglas/uploads/y", WriteOptions.DEFAULT), Reason.INVALID_KEY);
    assertThat(origin.list(new ListRequest("rsv", "", null, null, null, 1000)).join().objects())
        .extracting(ListedObject::key).containsExactly("k");
    ListPage rolled = origin.list(new ListRequest("rsv", "", "/", null, null, 1000)).join();
    assertThat(rolled.commonPrefixes()).isEmpty();
    origin.delete("rsv", "k", WriteCondition.NONE).join();
    // only our own markers left: the bucket counts as empty, as S3's with an upload in progress
    origin.deleteBucket("rsv").join();
    assertThat(origin.bucketExists("rsv").join()).isFalse();
  }

  @Test
  void keysThatNeedEscapingRoundTrip() {
    origin.createBucket("odd").join();
    List<String> keys = List.of("dir/", "a b+c", "100%/x", "q?x=1#frag", "unicode/\u00e9\u6f22\ud83d\ude00",
        "a//b", ".hidden/x.y", "semi;colon&amp", "~tilde'quote\"");
    for (String key : keys) {
      String etag = origin.put("odd", key, body(key), WriteOptions.DEFAULT).join().etag();
      assertThat(origin.head("odd", key).join().etag()).as(key).isEqualTo(etag);
      int length = key.getBytes(StandardCharsets.UTF_8).length;
      assertThat(text(origin.readRange("odd", key, etag, 0, length).join())).as(key).isEqualTo(key);
    }
    assertThat(origin.list(new ListRequest("odd", "", null, null, null, 1000)).join().objects())
        .extracting(ListedObject::key).containsExactlyInAnyOrderElementsOf(keys);
    // keys Azure would store under another name are refused, never silently renamed
    for (String key : List.of("back\\slash", "trailing.", "dot./segment", "a/./b", "a/../b")) {
      assertReason(origin.put("odd", key, body(key), WriteOptions.DEFAULT), Reason.INVALID_KEY);
    }
  }

  @Test
  void bucketsAndErrorsMapToReasons() {
    assertThat(origin.listBuckets().join()).extracting(b -> b.name()).contains("bkt");
    assertReason(origin.createBucket("bkt"), Reason.BUCKET_ALREADY_OWNED);
    assertReason(origin.createBucket("Bad_Name"), Reason.INVALID_BUCKET_NAME);
    assertReason(origin.head("no-such-bucket", "k"), Reason.NO_SUCH_BUCKET);
    assertReason(origin.put("no-such-bucket", "k", body("x"), WriteOptions.DEFAULT), Reason.NO_SUCH_BUCKET);
    origin.createBucket("full").join();
    origin.put("full", "k", body("x"), WriteOptions.DEFAULT).join();
    assertReason(origin.deleteBucket("full"), Reason.BUCKET_NOT_EMPTY);
    assertThat(origin.head("full", "k").join().size()).isEqualTo(1);
  }

  @Test
  void anUnreachableOriginIsUnavailable() {
    try (AzureOrigin dead = AzureOrigin.builder().endpoint(URI.create("http://127.0.0.1:1/devstoreaccount1"))
        .account(AzuriteExtension.ACCOUNT).sharedKey(AzuriteExtension.KEY).build()) {
      assertReason(dead.head("bkt", "k"), Reason.UNAVAILABLE);
    }
  }

  private static WriteOptions options(WriteCondition condition) {
    return WriteOptions.DEFAULT.withCondition(condition);
  }
}
