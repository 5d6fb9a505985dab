package io.verglas.cache.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.cache.origin.ObjectBody;
import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.OriginException;
import io.verglas.cache.origin.OriginException.Reason;
import io.verglas.cache.origin.WriteCondition;
import io.verglas.cache.origin.WriteOptions;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The guarantees the cache builds on, asked of an {@link Origin} directly; one subclass per kind
 * of origin. (What clients see through a node in front of it is {@link S3CompatibilitySpec}.)
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class OriginContract {
  protected Origin origin;

  /** A fresh origin; the contract creates its bucket {@code bkt}. */
  protected abstract Origin newOrigin() throws Exception;

  protected void stopOrigin() throws Exception {}

  @BeforeAll
  void startOrigin() throws Exception {
    origin = newOrigin();
    origin.createBucket("bkt").join();
  }

  @AfterAll
  void closeOrigin() throws Exception {
    origin.close();
    stopOrigin();
  }

  protected static ObjectBody body(String s) {
    return ObjectBody.ofBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  protected static Reason reason(Throwable t) {
    Throwable e = t;
    while (!(e instanceof OriginException) && e.getCause() != null) {
      e = e.getCause();
    }
    return e instanceof OriginException o ? o.reason() : null;
  }

  @Test
  void rangeReadsArePinnedToAnEtag() {
    String v1 = origin.put("bkt", "k", body("version-1"), WriteOptions.DEFAULT).join().etag();
    assertThat(v1).startsWith("\"").endsWith("\"");
    assertThat(new String(origin.readRange("bkt", "k", v1, 8, 1).join(), StandardCharsets.UTF_8)).isEqualTo("1");
    origin.put("bkt", "k", body("version-2"), WriteOptions.DEFAULT).join();
    assertThatThrownBy(() -> origin.readRange("bkt", "k", v1, 0, 4).join())
        .satisfies(t -> assertThat(reason(t)).isEqualTo(Reason.PRECONDITION_FAILED));
  }

  @Test
  void revalidationAnswersNotModifiedOrTheNewVersion() {
    String etag = origin.put("bkt", "r", body("a"), WriteOptions.DEFAULT).join().etag();
    assertThat(origin.revalidate("bkt", "r", etag).join()).isEmpty();
    origin.put("bkt", "r", body("bb"), WriteOptions.DEFAULT).join();
    ObjectMeta changed = origin.revalidate("bkt", "r", etag).join().orElseThrow();
    assertThat(changed.size()).isEqualTo(2);
    assertThat(changed.etag()).isNotEqualTo(etag);
  }

  /** What write-back's conditional propagation of a buffered delete relies on. */
  @Test
  void aDeleteIfMatchRemovesOnlyTheVersionItNames() {
    String v1 = origin.put("bkt", "d", body("one"), WriteOptions.DEFAULT).join().etag();
    String v2 = origin.put("bkt", "d", body("two"), WriteOptions.DEFAULT).join().etag();
    assertThatThrownBy(() -> origin.delete("bkt", "d", WriteCondition.ifMatch(v1)).join())
        .satisfies(t -> assertThat(reason(t)).isEqualTo(Reason.PRECONDITION_FAILED));
    assertThat(origin.head("bkt", "d").join().etag()).isEqualTo(v2);

    origin.delete("bkt", "d", WriteCondition.ifMatch(v2)).join();
    assertThatThrownBy(() -> origin.head("bkt", "d").join())
        .satisfies(t -> assertThat(reason(t)).isEqualTo(Reason.NO_SUCH_KEY));
  }

  @Test
  void metadataRoundTripsAndErrorsMapToReasons() {
    origin.put("bkt", "m", body("x"), new WriteOptions("text/plain", Map.of("owner", "me"),
        Map.of("cache-control", "max-age=60"), WriteCondition.NONE)).join();
    ObjectMeta meta = origin.head("bkt", "m").join();
    assertThat(meta.contentType()).isEqualTo("text/plain");
    assertThat(meta.userMetadata()).containsEntry("owner", "me");
    assertThat(meta.contentHeaders()).containsEntry("cache-control", "max-age=60");

    assertThatThrownBy(() -> origin.head("bkt", "missing").join())
        .satisfies(t -> assertThat(reason(t)).isEqualTo(Reason.NO_SUCH_KEY));
    assertThat(origin.bucketExists("bkt").join()).isTrue();
    assertThat(origin.bucketExists("no-such-bucket").join()).isFalse();
    assertThatThrownBy(() -> origin.put("bkt", "m", body("y"), WriteOptions.DEFAULT.withCondition(WriteCondition.ifNoneMatchAny())).join())
        .satisfies(t -> assertThat(reason(t)).isIn(Reason.PRECONDITION_FAILED, Reason.CONFLICT));
  }
}
