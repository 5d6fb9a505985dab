package io.verglas.cache;

import static io.verglas.cache.TestingCacheNode.BUCKET;
import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.origin.LocalDirectoryOrigin;
import io.verglas.cache.origin.ObjectBody;
import io.verglas.cache.origin.WriteOptions;
import io.verglas.cache.protection.OriginProtection;
import io.verglas.cache.writeback.Propagator;
import io.verglas.cache.writeback.WriteBackConfig;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * A key written to the origin around the cache while a write (or a delete) of it is buffered (one
 * node, local fragment stores): propagation does not overwrite (or delete) it, holds the buffered
 * change and reports the conflict, and a later write through the cache resolves it.
 */
class WriteBackConflictTest {
  private static final String KEY = "tables/x";

  @TempDir Path origin;
  @TempDir Path buffers;
  private TestingCountingOrigin counting;
  private TestingCacheNode t;

  @AfterEach
  void stop() {
    if (t != null) {
      t.close();
    }
  }

  @Test
  void aWriteAroundTheCacheIsNotOverwrittenAndALaterWriteThroughTheCacheResolvesTheConflict() throws Exception {
    start();
    put("buffered");
    writeAround();

    Propagator.Pass pass = t.node.writeBack().propagate();
    assertThat(pass.failed()).isEqualTo(1);
    assertThat(pass.lastError()).contains("written around the cache");
    assertThat(t.node.writeBack().propagate()).as("held, not retried").isEqualTo(new Propagator.Pass(0, 0, 0, 0, null));
    assertThat(Files.readString(origin.resolve(BUCKET).resolve(KEY))).isEqualTo("around the cache");
    assertThat(counting.putsByKey.get(KEY)).isNull();
    assertThat(t.node.writeBack().stats().propagationConflicts()).isEqualTo(1);
    assertThat(t.node.writeBack().stats().dirtyObjects()).as("kept, with its fragments").isEqualTo(1);
    assertThat(get()).isEqualTo("buffered");
    assertThat(metrics()).contains("verglas_cache_writeback_propagation_conflicts 1\n");

    put("after both");
    assertThat(t.node.writeBack().propagate()).isEqualTo(new Propagator.Pass(1, 1, 0, 0, null));
    assertThat(Files.readString(origin.resolve(BUCKET).resolve(KEY))).isEqualTo("after both");
    assertThat(t.node.writeBack().stats().propagationConflicts()).isZero();
    assertThat(t.node.writeBack().stats().dirtyObjects()).isZero();
  }

  @Test
  void aWriteAroundTheCacheAfterABufferedDeleteIsNotDeleted() throws Exception {
    start();
    put("buffered");
    t.s3.deleteObject(b -> b.bucket(BUCKET).key(KEY));
    writeAround();

    Propagator.Pass pass = t.node.writeBack().propagate();
    assertThat(pass).as("the write superseded by the delete, the delete held")
        .isEqualTo(new Propagator.Pass(0, 1, 0, 1, pass.lastError()));
    assertThat(pass.lastError()).contains("written around the cache");
    assertThat(t.node.writeBack().propagate()).as("held, not retried").isEqualTo(new Propagator.Pass(0, 0, 0, 0, null));
    assertThat(Files.readString(origin.resolve(BUCKET).resolve(KEY))).isEqualTo("around the cache");
    assertThat(t.node.writeBack().stats().propagationConflicts()).isEqualTo(1);
    assertThat(metrics()).contains("verglas_cache_writeback_propagation_conflicts 1\n");
    assertThat(t.s3.listObjectsV2(b -> b.bucket(BUCKET).prefix(KEY)).contents()).as("still deleted through the cache")
        .isEmpty();

    put("after both");
    assertThat(t.node.writeBack().propagate()).isEqualTo(new Propagator.Pass(1, 1, 0, 0, null));
    assertThat(Files.readString(origin.resolve(BUCKET).resolve(KEY))).isEqualTo("after both");
    assertThat(t.node.writeBack().stats().propagationConflicts()).isZero();
  }

  @Test
  void aDeleteThroughTheCacheAfterAConflictDeletesWhatWasWrittenAroundIt() throws Exception {
    start();
    put("buffered");
    writeAround();
    assertThat(t.node.writeBack().propagate().failed()).isEqualTo(1);

    t.s3.deleteObject(b -> b.bucket(BUCKET).key(KEY));
    assertThat(t.node.writeBack().propagate()).as("its HEAD saw the outside write")
        .isEqualTo(new Propagator.Pass(1, 1, 0, 0, null));
    assertThat(origin.resolve(BUCKET).resolve(KEY)).doesNotExist();
    assertThat(t.node.writeBack().stats().propagationConflicts()).isZero();
  }

  private void start() {
    t = new TestingCacheNode(origin, o -> counting = new TestingCountingOrigin(o), b -> b.writeBack(
        WriteBackConfig.builder().cellBytes(16 * 1024).directory(buffers).localFragmentStores(true)
            .propagationInterval(Duration.ofHours(1)).enable(BUCKET, "tables/").build())
        .originProtection(OriginProtection.disabled()).adminPort(0));
  }

  private void writeAround() {
    new LocalDirectoryOrigin(origin).put(BUCKET, KEY, ObjectBody.ofBytes(bytes("around the cache")),
        WriteOptions.DEFAULT).join();
  }

  private void put(String body) {
    t.s3.putObject(b -> b.bucket(BUCKET).key(KEY), RequestBody.fromBytes(bytes(body)));
  }

  private String get() {
    return t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(KEY)).asUtf8String();
  }

  private String metrics() throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(t.node.adminEndpoint().resolve("/metrics")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
