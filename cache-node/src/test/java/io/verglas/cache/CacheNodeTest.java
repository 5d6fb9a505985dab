package io.verglas.cache;

import static io.verglas.cache.TestingCacheNode.BUCKET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.verglas.cache.origin.LocalDirectoryOrigin;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.S3Exception;

class CacheNodeTest {
  @TempDir Path dir;

  @Test
  void builderValidatesAsValuesAreSet() {
    CacheNode.Builder b = CacheNode.builder();
    assertThatThrownBy(() -> b.blockSize(CacheNode.MIB - 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1048575");
    assertThatThrownBy(() -> b.blockSize(8 * CacheNode.MIB + 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.port(70000)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("70000");
    assertThatThrownBy(() -> b.dramCapacityBytes(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.credentials("", "s")).isInstanceOf(IllegalArgumentException.class);
    b.blockSize(4 * CacheNode.MIB);
    assertThatThrownBy(() -> b.blockSize(2 * CacheNode.MIB)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("blockSize");
  }

  @Test
  void buildChecksCrossFieldRules() {
    try (LocalDirectoryOrigin origin = new LocalDirectoryOrigin(dir)) {
      assertThatThrownBy(() -> CacheNode.builder().credentials("a", "b").build())
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("origin");
      assertThatThrownBy(() -> CacheNode.builder().origin(origin).build())
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("credentials");
      assertThatThrownBy(() -> CacheNode.builder().origin(origin).credentials("a", "b")
          .blockSize(2 * CacheNode.MIB).dramCapacityBytes(CacheNode.MIB).build())
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("smaller than one block");
      CacheNode.builder().origin(origin).allowAnonymous(true).build().close();
    }
  }

  @Test
  void tierSettingsAreChecked() {
    try (LocalDirectoryOrigin origin = new LocalDirectoryOrigin(dir)) {
      assertThatThrownBy(() -> CacheNode.builder().nvmeCapacityBytes(-1))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
      assertThatThrownBy(() -> CacheNode.builder().nvmeIoThreads(0))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nvmeIoThreads: 0");
      assertThatThrownBy(() -> CacheNode.builder().metadataStoreCapacityBytes(-5))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-5");
      assertThatThrownBy(() -> CacheNode.builder().allowAnonymous(true).origin(origin)
          .nvmeDirectory(dir.resolve("nvme")).build())
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("nvmeCapacityBytes");
      assertThatThrownBy(() -> CacheNode.builder().allowAnonymous(true).origin(origin)
          .nvmeDirectory(dir.resolve("nvme")).nvmeCapacityBytes(CacheNode.MIB).build())
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("smaller than one block file");
      assertThatThrownBy(() -> CacheNode.builder().allowAnonymous(true).origin(origin)
          .metadataStoreCapacityBytes(1000).metadataStoreMaxEntryBytes(1001).build())
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("1001");
      // A small store caps the default entry limit instead of failing; 0 disables the store.
      CacheNode.builder().allowAnonymous(true).origin(origin).metadataStoreCapacityBytes(1000).build().close();
      try (CacheNode node = CacheNode.builder().allowAnonymous(true).origin(origin)
          .metadataStoreCapacityBytes(0).build()) {
        assertThat(node.stats().metadata()).isEqualTo(TierStats.ABSENT);
        assertThat(node.stats().nvme()).isEqualTo(TierStats.ABSENT);
      }
      assertThat(java.nio.file.Files.exists(dir.resolve("nvme"))).isFalse(); // refused builds left nothing
    }
  }

  @Test
  void lifecycle() throws Exception {
    try (LocalDirectoryOrigin origin = new LocalDirectoryOrigin(dir)) {
      CacheNode node = CacheNode.builder().origin(origin).credentials("a", "b").build();
      assertThatThrownBy(node::port).isInstanceOf(IllegalStateException.class);
      assertThat(node.start()).isSameAs(node);
      assertThat(node.port()).isPositive();
      assertThat(node.endpoint().toString()).isEqualTo("http://127.0.0.1:" + node.port());
      assertThatThrownBy(node::start).isInstanceOf(IllegalStateException.class);
      Map<String, Object> stats = new ObjectMapper().readValue(node.stats().toJson(),
          new com.fasterxml.jackson.core.type.TypeReference<Map<String, Object>>() { });
      assertThat(stats).containsKeys("hits", "misses", "bytesServedFromCache", "fills", "evictions",
          "originRequests", "dramBytes", "dramCapacityBytes", "dram", "nvme", "metadata",
          "revalidations", "origin");
      @SuppressWarnings("unchecked")
      Map<String, Object> dram = (Map<String, Object>) stats.get("dram");
      assertThat(dram).containsKeys("hits", "misses", "bytes", "fills",
          "evictions", "admissionRejects", "capacityBytes", "entries");
      assertThat(stats.get("dramCapacityBytes")).isEqualTo(268435456);
      node.close();
      node.close();
      assertThatThrownBy(node::start).isInstanceOf(IllegalStateException.class);
      // The port is free again.
      try (java.net.ServerSocket s = new java.net.ServerSocket(node.port(), 1,
          java.net.InetAddress.getByName("127.0.0.1"))) {
        assertThat(s.getLocalPort()).isEqualTo(node.port());
      }
    }
  }

  @Test
  void largeBodiesAreSpooledAndTheLimitIsEnforced() throws Exception {
    Path spool = Files.createDirectories(dir.resolve("spool"));
    try (TestingCacheNode t = new TestingCacheNode(dir.resolve("data"), o -> o,
        b -> b.spoolThresholdBytes(1024).spoolDirectory(spool).maxObjectSize(3L * CacheNode.MIB))) {
      byte[] content = S3ObjectOperationsTest.randomBytes(2 * CacheNode.MIB, 4);
      t.s3.putObject(r -> r.bucket(BUCKET).key("spooled"), RequestBody.fromBytes(content));
      assertThat(t.s3.getObjectAsBytes(r -> r.bucket(BUCKET).key("spooled")).asByteArray()).isEqualTo(content);
      // Refused on the request head, before any body byte is read. (The Apache client is used
      // because HttpURLConnection cannot read the error body of a rejected Expect: 100-continue.)
      try (var apache = t.apacheClient()) {
        assertThatThrownBy(() -> apache.putObject(r -> r.bucket(BUCKET).key("huge"),
            RequestBody.fromBytes(new byte[3 * CacheNode.MIB + 1])))
            .isInstanceOfSatisfying(S3Exception.class, e -> {
              assertThat(e.statusCode()).isEqualTo(400);
              assertThat(e.awsErrorDetails().errorCode()).isEqualTo("EntityTooLarge");
            });
        // The connection pool recovers: the next request works.
        assertThat(apache.getObjectAsBytes(r -> r.bucket(BUCKET).key("spooled")).asByteArray()).isEqualTo(content);
      }
      // Without Expect: 100-continue the rest of the body is drained, so the error body arrives.
      try (TestingRawHttp http = new TestingRawHttp(t.node.endpoint())) {
        var r = http.exchange("PUT", "/" + BUCKET + "/huge2", java.util.Map.of(), new byte[3 * CacheNode.MIB + 1]);
        assertThat(r.status()).isEqualTo(403); // unsigned: refused before the size check
        assertThat(r.text()).contains("<Code>AccessDenied</Code>");
        var again = http.exchange("HEAD", "/" + BUCKET, java.util.Map.of(), new byte[0]);
        assertThat(again.status()).isEqualTo(403); // same connection, still in step
      }
      try (var files = Files.list(spool)) {
        assertThat(files).isEmpty();
      }
    }
  }
}
