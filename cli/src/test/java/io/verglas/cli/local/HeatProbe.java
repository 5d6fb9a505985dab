package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The cache node's heat of a table, as the admin port's {@code /heat} reports it. The node
 * classifies a read only once it has walked the commit that added the file (it follows the feed
 * on threads of its own), so a read racing that walk leaves no heat: the probe reads again until
 * the report names the table's columns or the time is up.
 */
final class HeatProbe {
  /** One read of the table through the cache node. */
  interface Read {
    void run() throws Exception;
  }

  private HeatProbe() {}

  /** Reads through {@code read} until {@code /heat?table=} has partitions; returns the last report. */
  static JsonNode awaitHeat(EndpointsFile endpoints, String table, Read read, Duration timeout) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create(endpoints.adminUri() + "/heat?table="
            + URLEncoder.encode(table, StandardCharsets.UTF_8)))
        .header("Authorization", "Bearer " + endpoints.adminToken()).build();
    HttpClient http = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + timeout.toNanos();
    JsonNode report;
    do {
      read.run();
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      report = new ObjectMapper().readTree(response.body());
    } while (report.at("/partitions").isEmpty() && System.nanoTime() < deadline && pause());
    return report;
  }

  private static boolean pause() throws InterruptedException {
    Thread.sleep(300);
    return true;
  }
}
