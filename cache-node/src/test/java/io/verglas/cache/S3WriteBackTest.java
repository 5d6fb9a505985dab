package io.verglas.cache;

import static io.verglas.cache.TestingCacheNode.BUCKET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.cache.protection.OriginProtection;
import io.verglas.cache.writeback.WriteBackConfig;
import io.verglas.cache.writeback.WriteBackStats;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Write-back through the S3 surface of one node with local fragment stores (k=2, m=1, 64 KiB
 * cells): acknowledgment, reads of buffered writes, ordering, propagation, outage and restart.
 */
class S3WriteBackTest {
  private static final int CELL = 64 * 1024;

  @TempDir Path origin;
  @TempDir Path buffers;
  TestingCountingOrigin counting;
  TestingCacheNode t;

  @AfterEach
  void stop() {
    if (t != null) {
      t.close();
    }
  }

  private TestingCacheNode start(Consumer<WriteBackConfig.Builder> tune) {
    WriteBackConfig.Builder config = WriteBackConfig.builder().dataFragments(2).parityFragments(1).cellBytes(CELL)
        .directory(buffers).localFragmentStores(true).enable(BUCKET, "tables/");
    tune.accept(config);
    t = new TestingCacheNode(origin, o -> counting = new TestingCountingOrigin(o),
        b -> b.writeBack(config.build()).originProtection(OriginProtection.disabled()).blockSize(CacheNode.MIB)
            .adminPort(0));
    return t;
  }

  private TestingCacheNode startIdle() {
    return start(c -> c.propagationInterval(Duration.ofHours(1)));
  }

  @Test
  void acknowledgedPutIsServedByReconstructionUntilItReachesTheOrigin() throws Exception {
    startIdle();
    byte[] body = bytes(3 * 1024 * 1024 + 17, 1);
    String etag = t.s3.putObject(b -> b.bucket(BUCKET).key("tables/a").contentType("application/x-test")
        .metadata(Map.of("owner", "ada")), RequestBody.fromBytes(body)).eTag();

    assertThat(etag).isEqualTo(md5(body));
    assertThat(Files.exists(origin.resolve(BUCKET).resolve("tables/a"))).as("not on the origin yet").isFalse();
    assertThat(fragmentFiles()).as("w = k + m = 3 fragments, one per store").isEqualTo(3);
    ResponseBytes<GetObjectResponse> got = t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("tables/a"));
    assertThat(got.asByteArray()).isEqualTo(body);
    assertThat(got.response().eTag()).isEqualTo(etag);
    HeadObjectResponse head = t.s3.headObject(b -> b.bucket(BUCKET).key("tables/a"));
    assertThat(head.contentLength()).isEqualTo(body.length);
    assertThat(head.contentType()).isEqualTo("application/x-test");
    assertThat(head.metadata()).containsEntry("owner", "ada");
    byte[] range = t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("tables/a").range("bytes=200000-1300000"))
        .asByteArray();
    assertThat(range).isEqualTo(java.util.Arrays.copyOfRange(body, 200000, 1300001));
    assertThat(list("tables/").contents()).extracting(S3Object::key, S3Object::size)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("tables/a", (long) body.length));
    assertThat(t.node.writeBack().stats().dirtyObjects()).isEqualTo(1);

    assertThat(t.node.writeBack().propagate().propagated()).isEqualTo(1);
    assertThat(Files.readAllBytes(origin.resolve(BUCKET).resolve("tables/a"))).isEqualTo(body);
    assertThat(counting.putsByKey.get("tables/a")).hasValue(1);
    assertThat(fragmentFiles()).as("released after the origin write").isZero();
    assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("tables/a")).asByteArray()).isEqualTo(body);
    assertThat(t.s3.headObject(b -> b.bucket(BUCKET).key("tables/a")).metadata()).containsEntry("owner", "ada");
  }

  @Test
  void lastAcknowledgedWriteWinsAndADeleteIsAppliedAfterTheBufferedWrites() throws Exception {
    startIdle();
    put("tables/gone", bytes(1000, 2));
    t.node.writeBack().propagate();
    counting.writesDown = true;
    put("tables/k", bytes(200_000, 3));
    byte[] latest = bytes(150_000, 4);
    put("tables/k", latest);
    put("tables/gone", bytes(5000, 5));
    t.s3.deleteObject(b -> b.bucket(BUCKET).key("tables/gone"));

    assertThat(get("tables/k")).isEqualTo(latest);
    assertThatThrownBy(() -> get("tables/gone")).isInstanceOf(NoSuchKeyException.class);
    assertThat(list("tables/").contents()).extracting(S3Object::key).containsExactly("tables/k");
    assertThat(t.node.writeBack().propagate().failed()).isPositive();

    counting.writesDown = false;
    t.node.writeBack().propagate();
    assertThat(Files.readAllBytes(origin.resolve(BUCKET).resolve("tables/k"))).isEqualTo(latest);
    assertThat(Files.exists(origin.resolve(BUCKET).resolve("tables/gone"))).isFalse();
    assertThat(counting.putsByKey.get("tables/k")).as("the superseded write is never uploaded").hasValue(1);
    assertThat(counting.putsByKey.get("tables/gone")).hasValue(1);
    assertThat(t.node.writeBack().stats().dirtyObjects()).isZero();
  }

  @Test
  void originOutageThenRecoveryLosesNothingAndDuplicatesNothing() throws Exception {
    start(c -> c.propagationInterval(Duration.ofMillis(20)));
    counting.writesDown = true;
    byte[][] bodies = new byte[12][];
    for (int i = 0; i < bodies.length; i++) {
      bodies[i] = bytes(10_000 + i * 7919, 10 + i);
      put("tables/o" + i, bodies[i]);
    }
    Thread.sleep(200);
    WriteBackStats during = t.node.writeBack().stats();
    assertThat(during.dirtyObjects()).isEqualTo(bodies.length);
    assertThat(during.propagationFailures()).isPositive();
    assertThat(during.oldestDirtyAgeMillis()).isGreaterThanOrEqualTo(0);
    assertThat(metrics()).contains("verglas_cache_writeback_dirty_objects 12\n",
        "verglas_cache_writeback_acknowledged_total 12\n", "verglas_cache_writeback_oldest_dirty_age_seconds ",
        "verglas_cache_writeback_propagation_failures_total ");

    counting.writesDown = false;
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (t.node.writeBack().stats().dirtyObjects() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertThat(t.node.writeBack().stats().dirtyObjects()).isZero();
    for (int i = 0; i < bodies.length; i++) {
      assertThat(Files.readAllBytes(origin.resolve(BUCKET).resolve("tables/o" + i))).isEqualTo(bodies[i]);
      assertThat(counting.putsByKey.get("tables/o" + i)).hasValue(1);
    }
    assertThat(metrics()).contains("verglas_cache_writeback_dirty_objects 0\n",
        "verglas_cache_writeback_propagated_total 12\n", "verglas_cache_writeback_orphan_fragments_removed_total 0\n");
  }

  @Test
  void bufferedWritesSurviveARestart() throws Exception {
    startIdle();
    counting.writesDown = true;
    byte[] body = bytes(300_000, 7);
    put("tables/r", body);
    t.close();

    startIdle();
    assertThat(t.node.writeBack().stats().dirtyObjects()).isEqualTo(1);
    assertThat(get("tables/r")).isEqualTo(body);
    t.node.writeBack().propagate();
    assertThat(Files.readAllBytes(origin.resolve(BUCKET).resolve("tables/r"))).isEqualTo(body);
  }

  @Test
  void acknowledgesWithWFragmentsAndWritesThroughWithFewerNodes() throws Exception {
    Path full = buffers.resolve("fragments").resolve("local-2");
    Files.createDirectories(full);
    Files.write(full.resolve("filler.frag"), new byte[64 * 1024]);
    start(c -> c.ackFragments(2).fragmentCeilingBytes(3 * 64 * 1024).propagationInterval(Duration.ofHours(1)));
    byte[] small = bytes(20_000, 8);
    put("tables/w2", small);
    assertThat(Files.exists(origin.resolve(BUCKET).resolve("tables/w2"))).as("acknowledged with 2 of 3").isFalse();
    assertThat(get("tables/w2")).isEqualTo(small);
    t.close();

    start(c -> c.ackFragments(3).fragmentCeilingBytes(3 * 64 * 1024).propagationInterval(Duration.ofHours(1)));
    put("tables/w3", small);
    assertThat(Files.readAllBytes(origin.resolve(BUCKET).resolve("tables/w3"))).as("written through").isEqualTo(small);
    assertThat(t.node.writeBack().stats().writtenThrough()).isEqualTo(1);
    assertThat(get("tables/w2")).as("the earlier buffered write is still served").isEqualTo(small);
  }

  @Test
  void listingPagesHoldEachBufferedAndOriginKeyOnce() throws Exception {
    startIdle();
    put("tables/b", bytes(10, 1));
    put("tables/d", bytes(10, 2));
    t.node.writeBack().propagate();
    for (String key : new String[] {"tables/a", "tables/c", "tables/e", "tables/sub/f"}) {
      put(key, bytes(10, 3));
    }
    t.s3.deleteObject(b -> b.bucket(BUCKET).key("tables/e"));
    put("tables/e", bytes(10, 4));
    java.util.List<String> keys = new java.util.ArrayList<>();
    java.util.List<String> prefixes = new java.util.ArrayList<>();
    for (ListObjectsV2Response page : t.s3.listObjectsV2Paginator(b -> b.bucket(BUCKET).prefix("tables/")
        .delimiter("/").maxKeys(1))) {
      page.contents().forEach(o -> keys.add(o.key()));
      page.commonPrefixes().forEach(p -> prefixes.add(p.prefix()));
    }
    assertThat(keys).containsExactly("tables/a", "tables/b", "tables/c", "tables/d", "tables/e");
    assertThat(prefixes).containsExactly("tables/sub/");
  }

  @Test
  void aConditionalPutWaitsForTheKeysBufferedWritesToReachTheOrigin() throws Exception {
    startIdle();
    counting.writesDown = true;
    byte[] buffered = bytes(2000, 11);
    put("tables/c", buffered);
    assertThatThrownBy(() -> t.s3.putObject(b -> b.bucket(BUCKET).key("tables/c").ifNoneMatch("*"),
        RequestBody.fromBytes(bytes(10, 12))))
        .isInstanceOfSatisfying(software.amazon.awssdk.services.s3.model.S3Exception.class,
            e -> assertThat(e.statusCode()).isEqualTo(503));

    counting.writesDown = false;
    assertThatThrownBy(() -> t.s3.putObject(b -> b.bucket(BUCKET).key("tables/c").ifNoneMatch("*"),
        RequestBody.fromBytes(bytes(10, 12))))
        .isInstanceOfSatisfying(software.amazon.awssdk.services.s3.model.S3Exception.class,
            e -> assertThat(e.statusCode()).as("the buffered write is there first").isEqualTo(412));
    assertThat(Files.readAllBytes(origin.resolve(BUCKET).resolve("tables/c"))).isEqualTo(buffered);
    assertThat(t.node.writeBack().stats().dirtyObjects()).isZero();
  }

  @Test
  void aClusterNodeRefusesLocalFragmentStores() {
    assertThatThrownBy(() -> CacheNode.builder().allowAnonymous(true).origin(new TestingCountingOrigin(null))
        .cluster(io.verglas.cache.cluster.ClusterConfig.builder().nodeId("a").gossipPort(7800)
            .secret("0123456789abcdef").build())
        .writeBack(WriteBackConfig.builder().directory(buffers).localFragmentStores(true).build()).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Cannot build a cluster node with local fragment stores");
  }

  @Test
  void keysOutsideTheScopesAreWrittenThrough() throws Exception {
    startIdle();
    byte[] body = bytes(1000, 9);
    put("other/x", body);
    assertThat(Files.readAllBytes(origin.resolve(BUCKET).resolve("other/x"))).isEqualTo(body);
    assertThat(t.node.writeBack().stats().dirtyObjects()).isZero();
  }

  private String metrics() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    return http.send(HttpRequest.newBuilder(t.node.adminEndpoint().resolve("/metrics")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  private void put(String key, byte[] body) {
    t.s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(body));
  }

  private byte[] get(String key) {
    return t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray();
  }

  private ListObjectsV2Response list(String prefix) {
    return t.s3.listObjectsV2(b -> b.bucket(BUCKET).prefix(prefix));
  }

  private long fragmentFiles() throws IOException {
    try (Stream<Path> files = Files.walk(buffers.resolve("fragments"))) {
      return files.filter(f -> f.toString().endsWith(".frag")).count();
    }
  }

  private static byte[] bytes(int length, long seed) {
    byte[] bytes = new byte[length];
    new Random(seed).nextBytes(bytes);
    return bytes;
  }

  private static String md5(byte[] body) throws Exception {
    return '"' + HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(body)) + '"';
  }
}
