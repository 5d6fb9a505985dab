package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.verglas.events.CatalogEvent;
import io.verglas.events.FeedEvent;
import io.verglas.events.FeedEventParser;
import io.verglas.events.feed.ChangeFeed;
import io.verglas.events.feed.EventFilter;
import io.verglas.events.feed.FeedAccess;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local stack's admin endpoint on a real server on 127.0.0.1: credentials for publishing
 * and reading, request size bounds, 400s that are answered, and connections that cannot hold
 * the server by sending nothing or half a request.
 */
class AdminServerITCase {
  private static final String PUBLISH = "events-token";
  private static final String READ = "admin-token";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  private final List<Socket> sockets = new ArrayList<>();
  private ChangeFeed feed;
  private AdminServer server;
  private URI admin;

  private void start(AdminConfig config) {
    feed = new ChangeFeed(dir.resolve("events.jsonl"), config.feedBounds());
    server = new AdminServer("127.0.0.1", 0, config,
        FeedAccess.tokens(PUBLISH, READ, config.publicReads()), feed,
        new AdminPages(() -> "{\"status\":\"ok\"}", () -> "{\"hits\":1}", table -> {
          if (!table.equals("demo.t")) {
            throw new NoSuchTableException("Table does not exist: %s", table);
          }
          return "{\"table\":\"demo.t\"}";
        }, table -> "{\"table\":\"" + table + "\",\"partitions\":[]}", () -> "{\"time\":1}",
        () -> new io.verglas.cli.status.Readiness.Answer(false, "{\"ready\":false}"), () -> "verglas_up 1\n"),
        new AdminWebhooks(io.verglas.workers.webhook.WebhookSettings.builder().build()));
    admin = server.uri();
  }

  private void start() {
    start(AdminConfig.builder().maxEventBytes(8 * 1024).heartbeat(Duration.ofMillis(200))
        .build());
  }

  @AfterEach
  void stop() throws IOException {
    for (Socket socket : sockets) {
      socket.close();
    }
    if (server != null) {
      server.close();
      feed.close();
    }
  }

  @Test
  void aForgedPublishWithoutThePublishTokenIsRefusedAndAppendsNothing() throws Exception {
    start();
    String forged = FeedEventParser.toJson(commit("demo.t", 1));
    byte[] fileBefore = Files.readAllBytes(dir.resolve("events.jsonl"));

    HttpResponse<String> anonymous = post(forged, null);
    assertError(anonymous, 401, "no bearer token");
    assertThat(anonymous.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
    assertError(post(forged, "guess"), 403, "does not grant");
    assertError(post(forged, READ), 403, "does not grant");
    assertThat(feed.lastSequence()).isZero();
    assertThat(Files.readAllBytes(dir.resolve("events.jsonl"))).isEqualTo(fileBefore);

    HttpResponse<String> published = post(forged, PUBLISH);
    assertThat(published.statusCode()).isEqualTo(200);
    assertThat(FeedEventParser.fromJson(published.body()).feedSequence()).isEqualTo(1);
  }

  @Test
  void anOversizedPublishIs413ByItsLengthOrAsItArrivesAndTheServerStillAnswers()
      throws Exception {
    start();
    byte[] large = new byte[256 * 1024];

    assertError(post(HttpRequest.BodyPublishers.ofByteArray(large), PUBLISH), 413,
        "over 8192 bytes");
    assertError(post(HttpRequest.BodyPublishers.ofInputStream( // chunked: no length announced
        () -> new ByteArrayInputStream(large)), PUBLISH), 413, "over 8192 bytes");
    try (Socket socket = new Socket("127.0.0.1", admin.getPort())) { // announces 1 GB, sends none
      socket.setSoTimeout(5_000);
      socket.getOutputStream().write(("POST /events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
          + PUBLISH + "\r\nContent-Length: 1000000000\r\n\r\n").getBytes(StandardCharsets.UTF_8));
      assertThat(new BufferedReader(new InputStreamReader(socket.getInputStream(),
          StandardCharsets.US_ASCII)).readLine()).isEqualTo("HTTP/1.1 413 Request Entity Too Large");
    }
    assertThat(feed.lastSequence()).isZero();
    assertThat(get("/health", null).statusCode()).isEqualTo(200);
    assertThat(post(FeedEventParser.toJson(commit("demo.t", 1)), PUBLISH).statusCode())
        .isEqualTo(200);
  }

  @Test
  void badFromBadTimeAndDeeplyNestedJsonAreAnswered400WithAJsonError() throws Exception {
    start();
    String commit = FeedEventParser.toJson(commit("demo.t", 1));

    assertError(get("/events?from=abc", READ), 400, "invalid from: abc");
    assertError(get("/events?from=0", READ), 400, "sequences start at 1");
    assertError(get("/events?follow=maybe", READ), 400, "invalid follow: maybe");
    assertError(post(commit.replace(Instant.EPOCH.toString(), "yesterday"), PUBLISH), 400,
        "yesterday");
    assertError(post("[".repeat(5_000), PUBLISH), 400, "Cannot publish event");
    assertError(post("{\"a\":".repeat(1_500), PUBLISH), 400, "Cannot publish event");
    assertThat(feed.lastSequence()).isZero();
  }

  @Test
  void readsNeedTheReadOrPublishTokenUnlessTheAdminPortIsPublic() throws Exception {
    start();
    for (String path : List.of("/stats", "/events", "/maintenance?table=demo.t",
        "/heat?table=demo.t")) {
      assertError(get(path, null), 401, "no bearer token");
      assertError(get(path, "guess"), 403, "does not grant");
      assertThat(get(path, READ).statusCode()).as(path).isEqualTo(200);
      assertThat(get(path, PUBLISH).statusCode()).as(path).isEqualTo(200);
    }
    assertThat(get("/health", null).statusCode()).isEqualTo(200);
    assertError(get("/maintenance?table=demo.nope", READ), 404, "No such table");
    assertError(get("/heat", READ), 400, "Missing query parameter");
    assertError(get("/nope", READ), 404, "No such admin endpoint");
    assertError(get("/metrics", null), 401, "");
    HttpResponse<String> ready = get("/ready", null);
    assertThat(ready.statusCode()).as("readiness needs no token and says when it is not ready").isEqualTo(503);
    assertThat(ready.body()).isEqualTo("{\"ready\":false}");
    HttpResponse<String> page = get("/", null);
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body()).contains("<title>Verglas status</title>");
    assertError(post("{}", "/stats", READ), 405, "use GET");
    assertError(post("{}", "/v1/webhooks/hourly", null), 503,
        "Cannot accept webhook: the workers are starting"); // no workers behind this server
    assertError(get("/v1/webhooks/hourly", READ), 405, "use POST");
    stop();

    start(AdminConfig.builder().publicReads(true).build());
    for (String path : List.of("/stats", "/events", "/maintenance?table=demo.t")) {
      assertThat(get(path, null).statusCode()).as(path).isEqualTo(200);
    }
    assertError(post(FeedEventParser.toJson(commit("demo.t", 1)), null), 401, "no bearer token");
  }

  @Test
  void followersGetPublishedEventsAndReadersPagesOfTheirFilter() throws Exception {
    start();
    HttpResponse<InputStream> follow = client.send(HttpRequest.newBuilder(
            URI.create(admin + "/events?from=1&follow=true&table=demo.t"))
            .header("Authorization", "Bearer " + READ).build(),
        HttpResponse.BodyHandlers.ofInputStream());
    assertThat(follow.statusCode()).isEqualTo(200);
    BufferedReader lines = new BufferedReader(
        new InputStreamReader(follow.body(), StandardCharsets.UTF_8));
    CompletableFuture<List<FeedEvent>> received =
        CompletableFuture.supplyAsync(() -> readEvents(lines, 2));

    for (int i = 1; i <= 3; i++) {
      assertThat(post(FeedEventParser.toJson(commit(i == 2 ? "demo.other" : "demo.t", i)),
          PUBLISH).statusCode()).isEqualTo(200);
    }

    assertThat(received.get(10, TimeUnit.SECONDS)).extracting(FeedEvent::feedSequence)
        .containsExactly(1L, 3L);
    follow.body().close();
    HttpResponse<String> page = get("/events?from=2", READ);
    assertThat(page.headers().firstValue("Content-Type")).hasValue("application/x-ndjson");
    assertThat(page.body().lines().map(FeedEventParser::fromJson).map(FeedEvent::feedSequence))
        .containsExactly(2L, 3L);
    assertThat(feed.read(1, EventFilter.all(), 10)).hasSize(3);
  }

  @Test
  void aFollowerGetsTheResponseHeadBeforeAnyEventOrHeartbeat() throws Exception {
    start(AdminConfig.builder().heartbeat(Duration.ofSeconds(60)).build());
    HttpResponse<InputStream> follow = client.send(HttpRequest.newBuilder(
            URI.create(admin + "/events?follow=true")).timeout(Duration.ofSeconds(5))
            .header("Authorization", "Bearer " + READ).build(),
        HttpResponse.BodyHandlers.ofInputStream());
    assertThat(follow.statusCode()).isEqualTo(200);
    follow.body().close();
  }

  /**
   * 100 connections that send nothing and 50 that send half a request head (more than the 36
   * threads of the JDK server this replaced, where each held one) neither keep /health, a
   * publish or a read from answering at once nor stay open past the request timeout.
   */
  @Test
  void idleAndHalfSentRequestsNeitherStarveHealthNorOutliveTheTimeout() throws Exception {
    Duration timeout = Duration.ofSeconds(2);
    start(AdminConfig.builder().requestTimeout(timeout).build());
    for (int i = 0; i < 150; i++) {
      Socket socket = new Socket();
      socket.connect(new InetSocketAddress("127.0.0.1", admin.getPort()), 5_000);
      if (i >= 100) {
        socket.getOutputStream().write("GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: "
            .getBytes(StandardCharsets.US_ASCII));
      }
      sockets.add(socket);
    }

    long started = System.nanoTime();
    assertThat(get("/health", null).statusCode()).isEqualTo(200);
    assertThat(post(FeedEventParser.toJson(commit("demo.t", 1)), PUBLISH).statusCode())
        .isEqualTo(200);
    assertThat(get("/events", READ).statusCode()).isEqualTo(200);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));

    for (Socket socket : sockets) {
      socket.setSoTimeout((int) timeout.multipliedBy(3).toMillis());
      assertThat(closedByServer(socket)).isTrue();
    }
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(timeout);
  }

  @Test
  void connectionsBeyondTheBoundAreClosedAsTheyArrive() throws Exception {
    start(AdminConfig.builder().maxConnections(4).build());
    for (int i = 0; i < 5; i++) {
      Socket socket = new Socket("127.0.0.1", admin.getPort());
      socket.setSoTimeout(5_000);
      sockets.add(socket);
    }
    assertThat(closedByServer(sockets.get(4))).isTrue();
    OutputStream first = sockets.get(0).getOutputStream();
    first.write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    assertThat(new BufferedReader(new InputStreamReader(sockets.get(0).getInputStream(),
        StandardCharsets.US_ASCII)).readLine()).isEqualTo("HTTP/1.1 200 OK");
  }

  private static boolean closedByServer(Socket socket) {
    try {
      return socket.getInputStream().read() == -1;
    } catch (java.net.SocketException e) {
      return true; // reset: closed with the half-sent head unread
    } catch (IOException e) {
      return false; // timed out: still open
    }
  }

  private static CatalogEvent commit(String table, long snapshotId) {
    String uuid = "uuid-" + table;
    return new CatalogEvent(CatalogEvent.eventId(uuid, snapshotId), "verglas://test",
        Instant.EPOCH, List.of(table.split("\\.")), uuid, snapshotId, null, "append",
        snapshotId, 1_000L * snapshotId, Map.of("added-records", "5"),
        "s3://warehouse/" + table + "/metadata/v1.json", 0);
  }

  private static List<FeedEvent> readEvents(BufferedReader lines, int count) {
    List<FeedEvent> events = new ArrayList<>();
    try {
      while (events.size() < count) {
        String line = lines.readLine();
        if (line == null) {
          break;
        }
        if (!line.isBlank()) {
          events.add(FeedEventParser.fromJson(line));
        }
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return events;
  }

  private HttpResponse<String> get(String path, String token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(admin + path))
        .timeout(Duration.ofSeconds(10)).GET();
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String body, String token) throws Exception {
    return post(body, "/events", token);
  }

  private HttpResponse<String> post(String body, String path, String token) throws Exception {
    return post(HttpRequest.BodyPublishers.ofString(body), path, token);
  }

  private HttpResponse<String> post(HttpRequest.BodyPublisher body, String token)
      throws Exception {
    return post(body, "/events", token);
  }

  private HttpResponse<String> post(HttpRequest.BodyPublisher body, String path, String token)
      throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(admin + path))
        .timeout(Duration.ofSeconds(10)).POST(body);
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static void assertError(HttpResponse<String> response, int status, String message)
      throws Exception {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
    JsonNode body = JSON.readTree(response.body());
    assertThat(body.path("error").asText()).contains(message);
  }
}
