package io.verglas.events.feed;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.verglas.access.ScopedTokens;
import io.verglas.access.TableScope;
import io.verglas.events.FeedEventParser;
import io.verglas.table.TableIdentifiers;
import io.verglas.events.TestingEvents;
import java.io.ByteArrayInputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The feed's JDK HTTP face on a real server on 127.0.0.1: credentials, size bounds, 400s. */
class ChangeFeedHttpHandlerITCase {
  private static final String PUBLISH = "publish-token";
  private static final String READ = "read-token";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ScopedTokens SCOPED = new ScopedTokens(
      "scoped-token-key-of-the-feed-tests!!", Clock.systemUTC());

  @TempDir Path dir;
  private final HttpClient client = HttpClient.newHttpClient();
  private ChangeFeed feed;
  private HttpServer server;
  private ExecutorService executor;
  private URI events;

  private void start(boolean publicReads) throws Exception {
    feed = new ChangeFeed(dir.resolve("feed.jsonl"), new FeedBounds(100, 1 << 20, 4_096));
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/events", new ChangeFeedHttpHandler(feed,
        FeedAccess.tokens(PUBLISH, READ, publicReads).withScopedTokens(SCOPED), 2,
        Duration.ofMillis(200)));
    executor = Executors.newFixedThreadPool(4);
    server.setExecutor(executor);
    server.start();
    events = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/events");
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
      executor.shutdownNow();
      feed.close();
    }
  }

  @Test
  void badFromBadTimeAndDeeplyNestedJsonAreAnswered400WithAJsonError() throws Exception {
    start(false);
    String commit = FeedEventParser.toJson(TestingEvents.commit("a.t", 1));

    assertError(get("?from=abc", READ), 400, "invalid from: abc");
    assertError(get("?from=0", READ), 400, "sequences start at 1");
    assertError(post(commit.replace("2026-11-29T10:00:00Z", "yesterday"), PUBLISH), 400,
        "yesterday");
    assertError(post("[".repeat(3_000), PUBLISH), 400, "Cannot publish event");
    assertThat(feed.lastSequence()).isZero();
    assertThat(post(commit, PUBLISH).statusCode()).isEqualTo(200);
  }

  @Test
  void publishingNeedsThePublishTokenAndAForgedEventAppendsNothing() throws Exception {
    start(false);
    String forged = FeedEventParser.toJson(TestingEvents.commit("a.t", 1));
    byte[] fileBefore = Files.readAllBytes(dir.resolve("feed.jsonl"));

    HttpResponse<String> anonymous = post(forged, null);
    assertError(anonymous, 401, "no bearer token");
    assertThat(anonymous.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
    assertError(post(forged, "guess"), 403, "does not grant");
    assertError(post(forged, READ), 403, "does not grant");
    assertThat(feed.lastSequence()).isZero();
    assertThat(Files.readAllBytes(dir.resolve("feed.jsonl"))).isEqualTo(fileBefore);

    assertThat(post(forged, PUBLISH).statusCode()).isEqualTo(200);
    assertThat(feed.lastSequence()).isEqualTo(1);
  }

  @Test
  void aBodyOverTheMaxEventSizeIs413ByItsLengthOrAsReadAndTheServerStillAnswers()
      throws Exception {
    start(false);
    byte[] large = new byte[64 * 1024];

    assertError(post(HttpRequest.BodyPublishers.ofByteArray(large), PUBLISH), 413,
        "over the max event size of 4096");
    assertError(post(HttpRequest.BodyPublishers.ofInputStream(  // chunked: no length given
        () -> new ByteArrayInputStream(large)), PUBLISH), 413, "over the max event size");
    assertThat(feed.lastSequence()).isZero();
    assertThat(get("?from=1", READ).statusCode()).isEqualTo(200);
  }

  @Test
  void readsNeedTheReadOrPublishTokenUnlessPublic() throws Exception {
    start(false);
    assertError(get("", null), 401, "Cannot read events");
    assertError(get("", "guess"), 403, "Cannot read events");
    assertThat(get("", READ).statusCode()).isEqualTo(200);
    assertThat(get("", PUBLISH).statusCode()).isEqualTo(200);
    stop();

    start(true);
    assertThat(get("", null).statusCode()).isEqualTo(200);
    assertError(post(FeedEventParser.toJson(TestingEvents.commit("a.t", 1)), READ), 403,
        "Cannot publish events");
  }

  @Test
  void aScopedTokenReadsOnlyTheEventsOfItsTablesAndPublishesNothing() throws Exception {
    start(false);
    for (String table : List.of("shop.orders", "shop.`orders.v2`", "shop.orders.v2", "hr.pay")) {
      assertThat(post(FeedEventParser.toJson(TestingEvents.commit(table, 1)), PUBLISH)
          .statusCode()).isEqualTo(200);
    }
    String token = SCOPED.mint(new TableScope("hourly/run-1", Instant.now().plusSeconds(60),
        Set.of(TableIdentifiers.identifier("shop.orders")),
        Set.of(TableIdentifiers.identifier("shop.`orders.v2`"))));

    assertThat(tables(get("", token))).containsExactly("shop.orders", "shop.`orders.v2`");
    assertThat(tables(get("?table=hr.pay", token))).isEmpty();
    assertThat(tables(get("", READ))).hasSize(4);
    assertError(post(FeedEventParser.toJson(TestingEvents.commit("shop.orders", 2)), token), 403,
        "Cannot publish events: a scoped token reads only the events of its tables");
    String expired = SCOPED.mint(new TableScope("hourly/run-0", Instant.now().minusSeconds(1),
        Set.of(TableIdentifiers.identifier("shop.orders")), Set.of()));
    assertError(get("", expired), 403, "Cannot read events: Invalid scoped token: token for "
        + "hourly/run-0 expired at ");
    assertThat(feed.lastSequence()).isEqualTo(4);
  }

  /** The tables of the events of an NDJSON answer, in order. */
  private static List<String> tables(HttpResponse<String> response) throws Exception {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    List<String> tables = new ArrayList<>();
    for (String line : response.body().split("\n")) {
      if (!line.isBlank()) {
        tables.add(FeedEventParser.fromJson(line).subject());
      }
    }
    return tables;
  }

  private HttpResponse<String> get(String query, String token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(events + query)).GET();
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String body, String token) throws Exception {
    return post(HttpRequest.BodyPublishers.ofString(body), token);
  }

  private HttpResponse<String> post(HttpRequest.BodyPublisher body, String token)
      throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(events).POST(body);
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static void assertError(HttpResponse<String> response, int status, String message)
      throws Exception {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
    assertThat(JSON.readTree(response.body()).path("error").asText()).contains(message);
  }
}
