package io.verglas.cache.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.cache.TestingCacheNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The REST catalog's bounds: request bodies, the request queue, a backing catalog not ready. */
class RestCatalogLimitsITCase {
  private static final String TOKEN = "limits-token";

  @TempDir
  Path dir;

  private TestingCacheNode t;

  @AfterEach
  void stop() {
    if (t != null) {
      t.close();
    }
  }

  private void start(RestCatalogConfig.Builder config) {
    t = new TestingCacheNode(dir, o -> o, b -> b.catalog(config.build()));
  }

  private static InMemoryCatalog memoryCatalog() {
    InMemoryCatalog catalog = new InMemoryCatalog();
    catalog.initialize("memory", Map.of());
    return catalog;
  }

  @Test
  void aBodyOverTheLimitIsRefusedAndChangesNothing() throws Exception {
    InMemoryCatalog catalog = memoryCatalog();
    start(RestCatalogConfig.builder(catalog, TOKEN).maxRequestBytes(64));
    String body = "{\"namespace\":[\"" + "n".repeat(100) + "\"]}";
    HttpResponse<String> response = send(HttpRequest.newBuilder(uri("/v1/namespaces"))
        .header("Authorization", "Bearer " + TOKEN)
        .POST(HttpRequest.BodyPublishers.ofString(body)));
    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
    assertThat(response.body()).contains("\"code\":400").contains("maximum allowed size");
    assertThat(catalog.listNamespaces()).isEmpty();
  }

  @Test
  void aCatalogNotReadyYetAnswers503() throws Exception {
    start(RestCatalogConfig.builder(() -> null, TOKEN));
    HttpResponse<String> response = get("/v1/namespaces");
    assertThat(response.statusCode()).isEqualTo(503);
    assertThat(response.body()).contains("ServiceUnavailableException").contains("not ready");
  }

  @Test
  void requestsBeyondTheQueueAnswer503AndTheOthersComplete() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    InMemoryCatalog blocking = new InMemoryCatalog() {
      @Override
      public List<Namespace> listNamespaces() {
        entered.countDown();
        await(release);
        return super.listNamespaces();
      }

      @Override
      public List<Namespace> listNamespaces(Namespace namespace) {
        entered.countDown();
        await(release);
        return super.listNamespaces(namespace);
      }
    };
    blocking.initialize("blocking", Map.of());
    start(RestCatalogConfig.builder(blocking, TOKEN).threads(1).queueCapacity(1));
    CompletableFuture<HttpResponse<String>> first = getAsync("/v1/namespaces");
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    List<CompletableFuture<HttpResponse<String>>> more = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      more.add(getAsync("/v1/namespaces"));
    }
    // Capacity is one running and one waiting: of three more, at least two are refused at once.
    long refused = 0;
    List<CompletableFuture<HttpResponse<String>>> waiting = new ArrayList<>();
    for (CompletableFuture<HttpResponse<String>> response : more) {
      try {
        HttpResponse<String> answered = response.get(2, TimeUnit.SECONDS);
        assertThat(answered.statusCode()).isEqualTo(503);
        refused++;
      } catch (java.util.concurrent.TimeoutException e) {
        waiting.add(response);
      }
    }
    assertThat(refused).isGreaterThanOrEqualTo(2);
    release.countDown();
    assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    for (CompletableFuture<HttpResponse<String>> response : waiting) {
      assertThat(response.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private URI uri(String path) {
    return URI.create(t.node.catalogUri() + path);
  }

  private HttpResponse<String> get(String path) throws Exception {
    return getAsync(path).get(10, TimeUnit.SECONDS);
  }

  private CompletableFuture<HttpResponse<String>> getAsync(String path) {
    return HttpClient.newHttpClient().sendAsync(HttpRequest.newBuilder(uri(path))
        .header("Authorization", "Bearer " + TOKEN).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
