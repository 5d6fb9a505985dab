package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.verglas.catalog.Catalogs;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The admin port's status page in a real browser (headless Chromium) against a running stack
 * with a table that has rows and has been read: the page loads its data with the admin token
 * and renders every panel with it; a screenshot is kept in {@code target/status-page.png}.
 */
class StatusPageITCase {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final int ROWS = 3_000;

  @RegisterExtension
  final LocalStackExtension local = LocalStackExtension.builder().startedByTest().build();

  @Test
  void theStatusPageRendersTheStacksTablesCacheAndHeat() throws Exception {
    assumeTrue(Files.isExecutable(CHROMIUM), "Chromium is not installed (.ci/run installs it)");
    EndpointsFile endpoints = local.start().endpoints();
    TestingOrders.push(endpoints, 0, ROWS);
    Catalog catalog = Catalogs.load(endpoints.catalogName(), endpoints.catalogProperties());
    assertThat(TestingOrders.awaitRows(catalog, ROWS)).isEqualTo(ROWS);
    JsonNode heat = HeatProbe.awaitHeat(endpoints, "shop.orders", () -> TestingOrders.awaitRows(catalog, ROWS),
        Duration.ofSeconds(60));
    assertThat(heat.at("/partitions")).as("heat of shop.orders").isNotEmpty();

    URI admin = endpoints.adminUri();
    HttpResponse<String> page = HttpClient.newHttpClient().send(HttpRequest.newBuilder(admin.resolve("/")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("content-type")).hasValue("text/html; charset=utf-8");
    assertThat(page.body()).doesNotContain("http://", "https://"); // no external assets

    String url = admin.resolve("/") + "#token=" + endpoints.adminToken();
    String dom = chromium("--dump-dom", url);
    assertThat(dom).contains("data-loaded=\"true\"");
    assertThat(section(dom, "p-tables")).contains("shop.orders").contains("3,000");
    assertThat(section(dom, "p-cache")).contains("DRAM").contains("metadata").containsPattern("\\d+\\.\\d%");
    assertThat(section(dom, "p-ingest")).contains("id=\"ingest-rows\">3,000<");
    assertThat(section(dom, "p-heat")).contains("shop.orders").contains(">id<").contains(">item<");
    assertThat(dom).contains("materializer running");

    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<String> ready = http.send(HttpRequest.newBuilder(admin.resolve("/ready")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
    assertThat(ready.body()).contains("\"origin\":\"ok\"", "\"catalog\":\"ok\"", "\"wal\":\"ok\"");
    HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(admin.resolve("/metrics"))
        .header("Authorization", "Bearer " + endpoints.adminToken()).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.body()).contains("verglas_ingest_acknowledged_rows_total 3000", "verglas_cache_block_hits_total");

    Path screenshot = Path.of("target", "status-page.png").toAbsolutePath();
    chromium("--screenshot=" + screenshot, "--window-size=1400,1100", url);
    assertThat(screenshot).isNotEmptyFile();
  }

  /** The section element with {@code id}, as Chromium rendered it. */
  private static String section(String dom, String id) {
    int at = dom.indexOf("id=\"" + id + "\"");
    assertThat(at).as("section %s in %s", id, dom).isNotNegative();
    return dom.substring(at, dom.indexOf("</section>", at));
  }

  /** Runs headless Chromium on {@code url} (time to load and poll once) and returns its stdout. */
  private String chromium(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox",
        "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=" + local.dir().resolve("chromium"),
        "--virtual-time-budget=10000"));
    command.addAll(List.of(args));
    Path log = local.dir().resolve("chromium.log");
    Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
    byte[] out = process.getInputStream().readAllBytes();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("chromium finished").isTrue();
    assertThat(process.exitValue()).as("chromium: %s", Files.readString(log)).isZero();
    return new String(out, StandardCharsets.UTF_8);
  }
}
