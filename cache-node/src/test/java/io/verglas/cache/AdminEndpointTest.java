package io.verglas.cache;

import static io.verglas.cache.TestingCacheNode.BUCKET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;

/** The admin endpoint of a real node: stats by tier, metrics, purge by prefix, health. */
class AdminEndpointTest {
  @TempDir Path dir;
  private TestingCountingOrigin counting;
  private final HttpClient http = HttpClient.newHttpClient();

  private HttpResponse<String> send(String method, URI uri) throws Exception {
    return http.send(HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void statsMetricsPurgeAndHealth() throws Exception {
    try (TestingCacheNode t = new TestingCacheNode(dir.resolve("origin"), o -> counting = new TestingCountingOrigin(o),
        b -> b.adminPort(0).metadataTtl(Duration.ofHours(1))
            .nvmeDirectory(dir.resolve("nvme")).nvmeCapacityBytes(32L * CacheNode.MIB))) {
      URI admin = t.node.adminEndpoint();
      assertThat(admin.getPort()).isNotEqualTo(t.node.port());
      for (String key : new String[] {"db/a/data/1.parquet", "db/a/data/2.parquet", "db/b/data/1.parquet"}) {
        t.s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromString(key));
        t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key));
      }
      t.node.flush();

      JsonNode stats = new ObjectMapper().readTree(send("GET", admin.resolve("/stats")).body());
      assertThat(stats.path("dram").path("fills").asLong()).isEqualTo(3);
      assertThat(stats.path("nvme").path("fills").asLong()).isEqualTo(3);
      assertThat(stats.path("nvme").path("capacityBytes").asLong()).isEqualTo(32L * CacheNode.MIB);
      assertThat(stats.has("metadata")).isTrue();

      HttpResponse<String> metrics = send("GET", admin.resolve("/metrics"));
      assertThat(metrics.headers().firstValue("content-type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
      assertThat(metrics.body()).contains("verglas_cache_fills_total{tier=\"nvme\"} 3");

      HttpResponse<String> purge = send("POST", admin.resolve("/purge?bucket=" + BUCKET + "&prefix=db/a/"));
      assertThat(purge.statusCode()).isEqualTo(200);
      JsonNode purged = new ObjectMapper().readTree(purge.body());
      assertThat(purged.path("blocks").asLong()).isEqualTo(4); // two keys, DRAM and NVMe each
      assertThat(purged.path("etags").asLong()).isEqualTo(2);

      int before = counting.rangeReads.get();
      t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("db/a/data/1.parquet"));
      t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("db/b/data/1.parquet"));
      assertThat(counting.rangeReads.get()).isEqualTo(before + 1); // only the purged key refetched

      HttpResponse<String> health = send("GET", admin.resolve("/health"));
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.body()).contains("\"status\":\"ok\"");
    }
  }

  @Test
  void builderRules() {
    assertThatThrownBy(() -> CacheNode.builder().adminPort(-1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
    assertThatThrownBy(() -> CacheNode.builder().allowAnonymous(true)
        .origin(new TestingCountingOrigin(null)).adminToken("x").build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("adminPort");
    try (var origin = new io.verglas.cache.origin.LocalDirectoryOrigin(dir)) {
      CacheNode node = CacheNode.builder().allowAnonymous(true).origin(origin).build().start();
      assertThatThrownBy(node::adminEndpoint).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("no admin port");
      node.close();
    }
  }
}
