package io.verglas.cache.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.verglas.cache.CacheStats;
import io.verglas.cache.PurgeResult;
import io.verglas.cache.TierStats;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class AdminHandlerTest {
  /** A hand-written fake: fixed stats, records purges. */
  static final class TestingAdmin implements CacheAdmin {
    final List<String> purges = new ArrayList<>();
    /** What heat answers; null as a node without awareness. */
    Map<String, Object> heat;
    String heatAsked;

    @Override
    public CacheStats stats() {
      TierStats dram = new TierStats(5, 2, 2, 1, 3, 4096, 8192, 2);
      return new CacheStats(7, 2, 1, 0, 1000, 2, 1, 9, 4096, 8192, dram,
          new TierStats(2, 1, 1, 0, 0, 5000, 100_000, 1), TierStats.ABSENT, 0, 3, 0, 4, 2,
          new io.verglas.cache.OriginStats(12, 3, 1, 0, 0, 0, 0, "CLOSED"),
          io.verglas.cache.AwarenessStats.ABSENT);
    }

    @Override
    public PurgeResult purge(String bucket, String prefix) {
      purges.add(bucket + "/" + prefix);
      return new PurgeResult(bucket, prefix, 3, 1, 2);
    }

    @Override
    public Map<String, Object> health() {
      return Map.of("status", "ok");
    }

    @Override
    public Map<String, Object> heat(String table, int limit) {
      heatAsked = table + "/" + limit;
      return heat;
    }
  }

  private final TestingAdmin admin = new TestingAdmin();

  private FullHttpResponse call(String token, HttpMethod method, String uri, String authorization) {
    EmbeddedChannel ch = new EmbeddedChannel(new AdminHandler(admin, token));
    DefaultFullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, uri);
    if (authorization != null) {
      request.headers().set(HttpHeaderNames.AUTHORIZATION, authorization);
    }
    ch.writeInbound(request);
    FullHttpResponse response = ch.readOutbound();
    ch.finishAndReleaseAll();
    return response;
  }

  private static String body(FullHttpResponse r) {
    try {
      return r.content().toString(StandardCharsets.UTF_8);
    } finally {
      r.release();
    }
  }

  @Test
  void statsHealthAndMetrics() {
    FullHttpResponse stats = call(null, HttpMethod.GET, "/stats", null);
    assertThat(stats.status().code()).isEqualTo(200);
    assertThat(stats.headers().get(HttpHeaderNames.CONTENT_TYPE)).isEqualTo("application/json");
    assertThat(body(stats)).contains("\"dram\":{\"hits\":5", "\"nvme\":{", "\"metadata\":{");

    assertThat(body(call(null, HttpMethod.GET, "/health", null))).isEqualTo("{\"status\":\"ok\"}");

    FullHttpResponse metrics = call(null, HttpMethod.GET, "/metrics", null);
    assertThat(metrics.headers().get(HttpHeaderNames.CONTENT_TYPE)).startsWith("text/plain; version=0.0.4");
    String text = body(metrics);
    assertThat(text).contains("verglas_cache_hits_total{tier=\"dram\"} 5\n",
        "verglas_cache_admission_rejects_total{tier=\"dram\"} 3\n",
        "verglas_cache_bytes{tier=\"nvme\"} 5000\n", "verglas_cache_origin_requests_total 9\n",
        "verglas_cache_origin_retries_total 3\n", "verglas_cache_origin_circuit_open 0\n");
    assertValidExposition(text);
  }

  @Test
  void purgeNeedsPostAndABucket() {
    FullHttpResponse ok = call(null, HttpMethod.POST, "/purge?bucket=w&prefix=db%2Ft%2F", null);
    assertThat(ok.status().code()).isEqualTo(200);
    assertThat(body(ok)).isEqualTo(
        "{\"bucket\":\"w\",\"prefix\":\"db/t/\",\"blocks\":3,\"metadataEntries\":1,\"etags\":2}");
    assertThat(admin.purges).containsExactly("w/db/t/");

    FullHttpResponse get = call(null, HttpMethod.GET, "/purge?bucket=w", null);
    assertThat(get.status().code()).isEqualTo(405);
    assertThat(get.headers().get(HttpHeaderNames.ALLOW)).isEqualTo("POST");
    get.release();
    FullHttpResponse noBucket = call(null, HttpMethod.POST, "/purge?prefix=x", null);
    assertThat(noBucket.status().code()).isEqualTo(400);
    assertThat(body(noBucket)).contains("bucket parameter is required");
    assertThat(admin.purges).hasSize(1); // refused requests changed nothing
  }

  @Test
  void heatNeedsATableAndAnAwareNode() {
    FullHttpResponse off = call(null, HttpMethod.GET, "/heat?table=db.t", null);
    assertThat(off.status().code()).isEqualTo(404);
    assertThat(body(off)).contains("Cannot report heat of db.t: the node runs without Iceberg awareness");

    admin.heat = Map.of("table", "db.t", "partitions", List.of());
    FullHttpResponse ok = call(null, HttpMethod.GET, "/heat?table=db.t", null);
    assertThat(ok.status().code()).isEqualTo(200);
    assertThat(body(ok)).contains("\"table\":\"db.t\"");
    assertThat(admin.heatAsked).isEqualTo("db.t/" + AdminHandler.DEFAULT_HEAT_LIMIT);
    call(null, HttpMethod.GET, "/heat?table=db.t&limit=3", null);
    assertThat(admin.heatAsked).isEqualTo("db.t/3");

    FullHttpResponse noTable = call(null, HttpMethod.GET, "/heat", null);
    assertThat(noTable.status().code()).isEqualTo(400);
    assertThat(body(noTable)).contains("the table parameter is required");
    FullHttpResponse badLimit = call(null, HttpMethod.GET, "/heat?table=db.t&limit=-1", null);
    assertThat(badLimit.status().code()).isEqualTo(400);
    assertThat(body(badLimit)).contains("invalid limit -1");
    assertThat(call(null, HttpMethod.POST, "/heat?table=db.t", null).status().code()).isEqualTo(405);
    assertThat(call("s3cret", HttpMethod.GET, "/heat?table=db.t", null).status().code()).isEqualTo(401);
  }

  @Test
  void unknownPathsAndMethods() {
    FullHttpResponse missing = call(null, HttpMethod.GET, "/nope", null);
    assertThat(missing.status().code()).isEqualTo(404);
    assertThat(body(missing)).contains("No such admin endpoint: /nope");
    FullHttpResponse post = call(null, HttpMethod.POST, "/stats", null);
    assertThat(post.status().code()).isEqualTo(405);
    post.release();
  }

  @Test
  void aTokenGuardsAllButHealth() {
    assertThat(call("s3cret", HttpMethod.GET, "/health", null).status().code()).isEqualTo(200);
    FullHttpResponse denied = call("s3cret", HttpMethod.POST, "/purge?bucket=w", "Bearer wrong");
    assertThat(denied.status().code()).isEqualTo(401);
    denied.release();
    assertThat(call("s3cret", HttpMethod.GET, "/metrics", null).status().code()).isEqualTo(401);
    assertThat(admin.purges).isEmpty();
    assertThat(call("s3cret", HttpMethod.POST, "/purge?bucket=w", "Bearer s3cret").status().code()).isEqualTo(200);
  }

  private static final Pattern SAMPLE = Pattern.compile("[a-z_]+(\\{tier=\"[a-z]+\"\\})? -?[0-9]+");

  /** Every sample line is well formed and every metric has HELP and TYPE before its samples. */
  static void assertValidExposition(String text) {
    java.util.Set<String> typed = new java.util.HashSet<>();
    for (String line : text.split("\n")) {
      if (line.startsWith("# TYPE ")) {
        String[] parts = line.split(" ");
        assertThat(parts[3]).isIn("counter", "gauge");
        typed.add(parts[2]);
      } else if (!line.startsWith("# HELP ")) {
        assertThat(line).matches(SAMPLE);
        String name = line.replaceAll("[{ ].*", "");
        assertThat(typed).as("TYPE before %s", name).contains(name);
      }
    }
  }
}
