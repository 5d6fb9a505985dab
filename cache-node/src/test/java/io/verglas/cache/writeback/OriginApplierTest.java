package io.verglas.cache.writeback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.cache.TestingCountingOrigin;
import io.verglas.cache.origin.ETags;
import io.verglas.cache.origin.ForwardingOrigin;
import io.verglas.cache.origin.LocalDirectoryOrigin;
import io.verglas.cache.origin.ObjectBody;
import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.OriginException;
import io.verglas.cache.origin.WriteCondition;
import io.verglas.cache.origin.WriteOptions;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Conditional propagation over a real directory origin: a write delivered only over a state its
 * expectation allows, a write already there not written again, a write around the cache never
 * overwritten, and a write without an expectation unconditional. Deletes likewise: a key written
 * around the cache (before the HEAD, or between the HEAD and the DELETE) is never deleted, and an
 * origin that cannot delete conditionally gets the delete its HEAD verified.
 */
class OriginApplierTest {
  private static final String BUCKET = "bucket";

  @TempDir Path root;
  private LocalDirectoryOrigin origin;
  private TestingCountingOrigin counting;
  private OriginApplier applier;

  @BeforeEach
  void start() {
    origin = new LocalDirectoryOrigin(root);
    origin.createBucket(BUCKET).join();
    counting = new TestingCountingOrigin(origin);
    applier = new OriginApplier(counting);
  }

  @Test
  void aWriteExpectingAMissingKeyCreatesIt() throws Exception {
    byte[] body = "buffered".getBytes();
    put("k", body, expecting(OriginExpectation.ABSENT));
    assertThat(Files.readAllBytes(root.resolve(BUCKET).resolve("k"))).isEqualTo(body);
  }

  @Test
  void aWriteTheOriginHoldsAlreadyIsNotWrittenAgain() throws Exception {
    byte[] body = "delivered before a crash".getBytes();
    direct("k", body);
    put("k", body, expecting(OriginExpectation.ABSENT));
    assertThat(counting.putsByKey.get("k")).isNull();
  }

  @Test
  void aWriteAroundTheCacheSinceTheAcknowledgementIsNeverOverwritten() throws Exception {
    String before = direct("k", "before".getBytes());
    direct("k", "around the cache".getBytes());

    assertThatThrownBy(() -> put("k", "buffered".getBytes(), expecting(before)))
        .isInstanceOf(PropagationConflictException.class).hasMessageContaining("written around the cache");
    assertThat(Files.readString(root.resolve(BUCKET).resolve("k"))).isEqualTo("around the cache");
    assertThat(counting.putsByKey.get("k")).isNull();

    byte[] allowed = "over an allowed state".getBytes();
    put("k", allowed, expecting(OriginExpectation.ABSENT, etag("around the cache".getBytes())));
    assertThat(Files.readAllBytes(root.resolve(BUCKET).resolve("k"))).isEqualTo(allowed);
  }

  @Test
  void aWriteWithoutAnExpectationIsUnconditional() throws Exception {
    direct("k", "around the cache".getBytes());
    byte[] body = "buffered".getBytes();
    put("k", body, Optional.empty());
    assertThat(Files.readAllBytes(root.resolve(BUCKET).resolve("k"))).isEqualTo(body);
  }

  @Test
  void aDeleteRemovesOnlyAStateItsExpectationAllows() throws Exception {
    String buffered = direct("k", "propagated before the delete".getBytes());
    applier.delete(BUCKET, "k", OriginExpectation.metadata(expecting(OriginExpectation.ABSENT, buffered)));
    assertThat(root.resolve(BUCKET).resolve("k")).doesNotExist();

    applier.delete(BUCKET, "k", OriginExpectation.metadata(expecting(buffered)));
    assertThat(root.resolve(BUCKET).resolve("k")).as("missing: done already").doesNotExist();
  }

  @Test
  void aDeleteOfAKeyWrittenAroundTheCacheIsAConflict() throws Exception {
    String buffered = etag("buffered".getBytes());
    direct("k", "around the cache".getBytes());
    assertThatThrownBy(() -> applier.delete(BUCKET, "k", OriginExpectation.metadata(
        expecting(OriginExpectation.ABSENT, buffered))))
        .isInstanceOf(PropagationConflictException.class).hasMessageContaining("written around the cache");
    assertThat(Files.readString(root.resolve(BUCKET).resolve("k"))).isEqualTo("around the cache");

    applier.delete(BUCKET, "k", Map.of());
    assertThat(root.resolve(BUCKET).resolve("k")).as("no expectation: unconditional").doesNotExist();
  }

  @Test
  void aWriteBetweenTheHeadAndTheDeleteIsAConflict() throws Exception {
    String buffered = direct("k", "buffered".getBytes());
    OriginApplier racing = new OriginApplier(new ForwardingOrigin(origin) {
      @Override
      public CompletableFuture<ObjectMeta> head(String bucket, String key) {
        return delegate().head(bucket, key).thenCompose(meta -> delegate().put(bucket, key,
            ObjectBody.ofBytes("around the cache".getBytes()), WriteOptions.DEFAULT).thenApply(written -> meta));
      }
    });
    assertThatThrownBy(() -> racing.delete(BUCKET, "k", OriginExpectation.metadata(expecting(buffered))))
        .isInstanceOf(PropagationConflictException.class).hasMessageContaining("changed since " + buffered);
    assertThat(Files.readString(root.resolve(BUCKET).resolve("k"))).isEqualTo("around the cache");
  }

  @Test
  void anOriginWithoutConditionalDeletesGetsTheDeleteItsHeadVerified() throws Exception {
    String buffered = direct("k", "buffered".getBytes());
    OriginApplier unconditional = new OriginApplier(new ForwardingOrigin(origin) {
      @Override
      public CompletableFuture<Void> delete(String bucket, String key, WriteCondition condition) {
        return condition.isNone() ? delegate().delete(bucket, key, condition) : CompletableFuture.failedFuture(
            new OriginException(OriginException.Reason.NOT_IMPLEMENTED, "Cannot delete conditionally"));
      }
    });
    direct("other", "around the cache".getBytes());
    assertThatThrownBy(() -> unconditional.delete(BUCKET, "other", OriginExpectation.metadata(expecting(buffered))))
        .isInstanceOf(PropagationConflictException.class);
    assertThat(root.resolve(BUCKET).resolve("other")).exists();

    unconditional.delete(BUCKET, "k", OriginExpectation.metadata(expecting(buffered)));
    assertThat(root.resolve(BUCKET).resolve("k")).doesNotExist();
  }

  private void put(String key, byte[] body, Optional<OriginExpectation> expected) throws Exception {
    Map<String, String> metadata = WriteBackMetadata.of(WriteOptions.DEFAULT, etag(body), expected);
    applier.put(BUCKET, key, metadata, body.length, new ByteArrayInputStream(body));
  }

  private String direct(String key, byte[] body) {
    return origin.put(BUCKET, key, ObjectBody.ofBytes(body), WriteOptions.DEFAULT).join().etag();
  }

  private static Optional<OriginExpectation> expecting(String... states) {
    return Optional.of(new OriginExpectation(List.of(states)));
  }

  private static String etag(byte[] body) {
    return ETags.ofMd5(ETags.newMd5().digest(body));
  }
}
