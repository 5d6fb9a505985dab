package io.verglas.workers.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import io.cloudevents.CloudEvent;
import io.verglas.workers.schedule.NewJob;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The webhook endpoint's answers (the job sink is a set of identities, as the queue's unique
 * identity is): authentication by admin token or Standard Webhooks signature, idempotency keys,
 * precise refusals, and the event a request becomes.
 */
class WebhookEndpointTest {
  private static final Instant NOW = Instant.parse("2026-12-03T08:00:00Z");
  private static final String SECRET = "whsec_c2VjcmV0LWtleS1vZi10aGUtZGVwbG95bWVudA==";
  private final String[] rotating = {"github-secret-1"};
  private final List<NewJob> jobs = new ArrayList<>();
  private final Set<String> identities = new HashSet<>();
  private final WebhookEndpoint endpoint = new WebhookEndpoint(WebhookSettings.builder()
      .adminToken("admin-token").maxBodyBytes(1024).maxHeaders(4)
      .clock(Clock.fixed(NOW, ZoneOffset.UTC)).build(),
      name -> switch (name) {
        case "orders" -> List.of(WebhookTarget.of("orders", "paid", SECRET));
        case "internal" -> List.of(WebhookTarget.of("internal", "hook", null));
        case "shop" -> List.of(WebhookTarget.of("shop", "stripe", SECRET),
            new WebhookTarget("shop", "github", () -> Optional.ofNullable(rotating[0])));
        default -> List.of();
      },
      job -> {
        jobs.add(job);
        return identities.add(job.identity());
      });

  @Test
  void adminTokenWithAnIdempotencyKeyEnqueuesOnce() {
    Map<String, String> headers = Map.of("Authorization", "Bearer admin-token",
        "Idempotency-Key", "delivery-7", "Content-Type", "application/json",
        "X-GitHub-Event", "push");
    WebhookReply first = post("/v1/webhooks/orders", headers, "{\"n\":1}");
    WebhookReply again = post("/v1/webhooks/orders", headers, "{\"n\":1}");
    assertThat(first.status()).isEqualTo(202);
    assertThat(first.json()).contains("\"job\":\"orders/webhook/paid/delivery-7\"",
        "\"duplicate\":false");
    assertThat(again.status()).isEqualTo(200);
    assertThat(again.json()).contains("\"duplicate\":true");
    CloudEvent event = jobs.get(0).event();
    assertThat(event.getType()).isEqualTo(WebhookEvents.TYPE);
    assertThat(event.getId()).isEqualTo("orders/webhook/paid/delivery-7");
    assertThat(event.getSource()).as("the trigger's own route").hasToString("/v1/webhooks/orders/paid");
    assertThat(post("/v1/webhooks/orders/paid", headers, "{\"n\":1}").status())
        .as("the same delivery on the trigger's own route").isEqualTo(200);
    assertThat(event.getDataContentType()).isEqualTo("application/json");
    assertThat(new String(event.getData().toBytes(), StandardCharsets.UTF_8)).isEqualTo("{\"n\":1}");
    assertThat(event.getExtension("httpxgithubevent")).isEqualTo("push");
    assertThat(event.getExtensionNames()).as("credentials never travel")
        .doesNotContain("httpauthorization");
  }

  @Test
  void standardWebhooksSignatureWithTheDeploymentSecretIsAccepted() {
    byte[] body = "{\"paid\":true}".getBytes(StandardCharsets.UTF_8);
    long at = NOW.getEpochSecond() - 10;
    WebhookReply reply = endpoint.handle(new WebhookRequest("POST", "/v1/webhooks/orders",
        Map.of("webhook-id", "msg_1", "webhook-timestamp", String.valueOf(at),
            "webhook-signature", "v1,bm90LWl0 " + WebhookSignature.header(SECRET, "msg_1", at, body),
            "content-type", "application/json"), body));
    assertThat(reply.status()).as(reply.json()).isEqualTo(202);
    assertThat(jobs).singleElement().satisfies(job ->
        assertThat(job.identity()).isEqualTo("orders/webhook/paid/msg_1"));
  }

  @Test
  void badCredentialsAre401WithTheReason() {
    byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
    long at = NOW.getEpochSecond();
    assertRefused(post("/v1/webhooks/orders", Map.of("Authorization", "Bearer wrong"), "{}"),
        401, "the bearer token is not the admin token");
    assertRefused(post("/v1/webhooks/orders", Map.of(), "{}"), 401, "no credential");
    assertRefused(endpoint.handle(new WebhookRequest("POST", "/v1/webhooks/orders", Map.of(
        "webhook-id", "msg_2", "webhook-timestamp", String.valueOf(at),
        "webhook-signature", WebhookSignature.header("whsec_b3RoZXI=", "msg_2", at, body)), body)),
        401, "matches the trigger's secret");
    long stale = at - 600;
    assertRefused(endpoint.handle(new WebhookRequest("POST", "/v1/webhooks/orders", Map.of(
        "webhook-id", "msg_3", "webhook-timestamp", String.valueOf(stale),
        "webhook-signature", WebhookSignature.header(SECRET, "msg_3", stale, body)), body)),
        401, "is more than 300 s from the server's time");
    assertRefused(endpoint.handle(new WebhookRequest("POST", "/v1/webhooks/internal", Map.of(
        "webhook-id", "m", "webhook-timestamp", String.valueOf(at), "webhook-signature", "v1,x"),
        body)), 401, "has no webhook secret; only the admin token is accepted");
    assertThat(post("/v1/webhooks/orders", Map.of("Authorization", "Bearer wrong"), "{}")
        .headers()).containsKey("WWW-Authenticate");
    assertThat(jobs).isEmpty();
  }

  @Test
  void preciseRefusals() {
    Map<String, String> admin = Map.of("Authorization", "Bearer admin-token");
    assertRefused(post("/v1/webhooks/nobody", admin, "{}"), 404,
        "no deployment nobody with a webhook trigger");
    assertRefused(post("/v1/webhooks/", admin, "{}"), 404,
        "is not /v1/webhooks/<deployment>[/<trigger>]");
    assertRefused(post("/v1/webhooks/orders/paid/x", admin, "{}"), 404, "is not /v1/webhooks/");
    assertRefused(post("/v1/webhooks/orders/refunds", admin, "{}"), 404,
        "deployment orders has no webhook trigger 'refunds' (its webhook triggers: [paid])");
    assertRefused(endpoint.handle(new WebhookRequest("GET", "/v1/webhooks/orders", admin,
        new byte[0])), 405, "only POST");
    assertRefused(post("/v1/webhooks/orders", admin, "x".repeat(1025)), 413, "exceeds 1024 bytes");
    assertThat(endpoint.check("POST", "/v1/webhooks/orders",
        Map.of("Authorization", "Bearer admin-token", "Content-Length", "5000")))
        .hasValueSatisfying(r -> assertThat(r.status()).isEqualTo(413));
    assertThat(endpoint.check("POST", "/v1/webhooks/orders", admin)).as("read the body").isEmpty();
    assertRefused(post("/v1/webhooks/orders", Map.of("Authorization", "Bearer admin-token",
        "Content-Type", "application/json"), "{not json"), 400, "declared JSON but is not");
    assertRefused(post("/v1/webhooks/orders", Map.of("Authorization", "Bearer admin-token",
        "Idempotency-Key", "has space"), "{}"), 400, "1 to 200 visible ASCII characters");
    assertThat(jobs).isEmpty();
  }

  @Test
  void withoutAKeyEachRequestRuns() {
    Map<String, String> admin = Map.of("Authorization", "Bearer admin-token");
    assertThat(post("/v1/webhooks/orders", admin, "").status()).isEqualTo(202);
    assertThat(post("/v1/webhooks/orders", admin, "").status()).isEqualTo(202);
    assertThat(identities).hasSize(2);
    assertThat(jobs.get(0).event().getData()).as("no body, no data").isNull();
  }

  @Test
  void headerExtensionsAreBounded() {
    assertThat(WebhookEvents.extensionName("X-Very-Long-Vendor-Header-Name")).hasSize(20)
        .startsWith("httpxverylong");
    assertThat(WebhookEvents.extensionName("--")).isNull();
    Map<String, String> many = new java.util.HashMap<>(Map.of("Authorization", "Bearer admin-token",
        "X-Long", "v".repeat(2000)));
    for (int i = 0; i < 10; i++) {
      many.put("X-H" + i, "h" + i);
    }
    post("/v1/webhooks/orders", many, "");
    CloudEvent event = jobs.get(0).event();
    assertThat(event.getExtensionNames()).hasSize(4).doesNotContain("httpxlong");
  }

  @Test
  void eachWebhookTriggerHasItsRouteSecretAndIdentities() {
    Map<String, String> admin = Map.of("Authorization", "Bearer admin-token",
        "Idempotency-Key", "d-1");
    assertRefused(post("/v1/webhooks/shop", admin, "{}"), 409,
        "deployment shop has 2 webhook triggers [stripe, github]; POST to /v1/webhooks/shop/<trigger>");
    assertThat(endpoint.check("POST", "/v1/webhooks/shop", admin))
        .hasValueSatisfying(r -> assertThat(r.status()).isEqualTo(409));
    assertThat(post("/v1/webhooks/shop/stripe", admin, "").status()).isEqualTo(202);
    assertThat(post("/v1/webhooks/shop/github", admin, "").status())
        .as("the same key on another trigger is another job").isEqualTo(202);
    assertThat(jobs).extracting(NewJob::identity)
        .containsExactly("shop/webhook/stripe/d-1", "shop/webhook/github/d-1");

    byte[] body = "{}".getBytes(StandardCharsets.UTF_8);
    long at = NOW.getEpochSecond();
    assertRefused(signed("/v1/webhooks/shop/github", "m1", at, SECRET, body), 401,
        "matches the trigger's secret");
    assertThat(signed("/v1/webhooks/shop/stripe", "m1", at, SECRET, body).status()).isEqualTo(202);
    assertThat(signed("/v1/webhooks/shop/github", "m2", at, "github-secret-1", body).status())
        .isEqualTo(202);
    rotating[0] = "github-secret-2"; // the secret as read when the request is verified
    assertRefused(signed("/v1/webhooks/shop/github", "m3", at, "github-secret-1", body), 401,
        "matches the trigger's secret");
    assertThat(signed("/v1/webhooks/shop/github", "m3", at, "github-secret-2", body).status())
        .isEqualTo(202);
    rotating[0] = null;
    assertRefused(signed("/v1/webhooks/shop/github", "m4", at, "github-secret-2", body), 401,
        "webhook trigger github of shop has no webhook secret");
  }

  private WebhookReply signed(String path, String id, long at, String secret, byte[] body) {
    return endpoint.handle(new WebhookRequest("POST", path, Map.of("webhook-id", id,
        "webhook-timestamp", String.valueOf(at),
        "webhook-signature", WebhookSignature.header(secret, id, at, body)), body));
  }

  private WebhookReply post(String path, Map<String, String> headers, String body) {
    return endpoint.handle(new WebhookRequest("POST", path, headers,
        body.getBytes(StandardCharsets.UTF_8)));
  }

  private static void assertRefused(WebhookReply reply, int status, String reason) {
    assertThat(reply.status()).as(reply.json()).isEqualTo(status);
    assertThat(reply.json()).contains(reason);
  }
}
