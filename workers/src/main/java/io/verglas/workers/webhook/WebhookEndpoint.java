package io.verglas.workers.webhook;

import io.cloudevents.CloudEvent;
import io.verglas.workers.schedule.JobSink;
import io.verglas.workers.schedule.NewJob;
import io.verglas.workers.schedule.SchedulerException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Webhook triggers: {@code POST /v1/webhooks/<deployment>} on the admin port turns the request
 * into a CloudEvent ({@link WebhookEvents}) and enqueues one job of the deployment.
 *
 * <p>Serving. Framework-free, so the admin server mounts it with a route: {@link #check} on the
 * request head (no blocking; refuses an unknown path or deployment, a wrong method, a missing
 * credential, a declared body too large) before a byte of body is buffered, then
 * {@link #handle} with the whole body, off the event loop (it enqueues on PostgreSQL).
 *
 * <p>Authentication, one of: {@code Authorization: Bearer <admin token>} (the stack's operators
 * and internal callers), or a Standard Webhooks signature with the deployment's own secret
 * ({@link WebhookSignature}; what senders such as Svix implement, and the shape of Stripe's and
 * GitHub's HMAC schemes). A wrong or missing credential is 401 with {@code WWW-Authenticate};
 * the reason is named, never the expected value.
 *
 * <p>Idempotency. The job identity is {@code <deployment>/webhook/<key>} with the key from
 * {@code Idempotency-Key}, else {@code webhook-id} (1..200 visible ASCII characters), so a
 * retried delivery enqueues nothing and runs once (200 with {@code "duplicate": true}); a request
 * with neither gets a random key, so each such request runs. A new job is 202 with its identity.
 */
public final class WebhookEndpoint {
  public static final String PREFIX = "/v1/webhooks/";
  public static final String IDEMPOTENCY_KEY = "idempotency-key";
  private static final Logger LOG = LoggerFactory.getLogger(WebhookEndpoint.class);
  private static final Pattern KEY = Pattern.compile("[\\x21-\\x7e]{1,200}");
  private static final Map<String, String> CHALLENGE =
      Map.of("WWW-Authenticate", "Bearer realm=\"verglas-webhooks\"");

  private final WebhookSettings settings;
  private final Function<String, Optional<WebhookTarget>> targets;
  private final JobSink jobs;

  /**
   * @param targets the deployment with a webhook trigger of a name, if any; called on the
   *     event loop by {@link #check}, so it must not block (an in-memory view of the deployments)
   * @param jobs where the jobs go ({@code Dispatcher::submit} runs them at once)
   */
  public WebhookEndpoint(WebhookSettings settings,
      Function<String, Optional<WebhookTarget>> targets, JobSink jobs) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.targets = Objects.requireNonNull(targets, "targets");
    this.jobs = Objects.requireNonNull(jobs, "jobs");
  }

  /** Whether {@code path} is under {@link #PREFIX} (the admin server routes it here). */
  public static boolean serves(String path) {
    return path.startsWith(PREFIX);
  }

  public WebhookSettings settings() {
    return settings;
  }

  /**
   * Checks a request head: the refusal to send at once, or empty to read the body (at most
   * {@link WebhookSettings#maxBodyBytes()}) and {@link #handle} the request.
   */
  public Optional<WebhookReply> check(String method, String path, Map<String, String> headers) {
    Map<String, String> lower = WebhookRequest.lowerCase(headers);
    return route(method, path).or(() -> {
      String length = lower.get("content-length");
      if (length != null && tooLarge(length)) {
        return Optional.of(tooLarge());
      }
      if (!lower.containsKey("authorization") && !lower.containsKey(WebhookSignature.SIGNATURE)) {
        return Optional.of(unauthorized(deployment(path), "no credential: send "
            + "Authorization: Bearer <admin token> or a " + WebhookSignature.SIGNATURE + " header"));
      }
      return Optional.empty();
    });
  }

  /** Answers a whole request: authenticates it and enqueues its job. Never throws. */
  public WebhookReply handle(WebhookRequest request) {
    Optional<WebhookReply> refused = check(request.method(), request.path(), request.headers());
    if (refused.isPresent()) {
      return refused.get();
    }
    if (request.body().length > settings.maxBodyBytes()) {
      return tooLarge();
    }
    WebhookTarget target = targets.apply(deployment(request.path())).orElseThrow();
    String denied = authenticate(request, target);
    if (denied != null) {
      return unauthorized(target.deployment(), denied);
    }
    return enqueue(request, target);
  }

  private WebhookReply enqueue(WebhookRequest request, WebhookTarget target) {
    String key = request.header(IDEMPOTENCY_KEY);
    if (key == null) {
      key = request.header(WebhookSignature.ID);
    }
    if (key != null && !KEY.matcher(key).matches()) {
      return WebhookReply.error(400, "Cannot accept webhook for " + target.deployment()
          + ": the idempotency key must be 1 to 200 visible ASCII characters");
    }
    String identity = target.deployment() + "/webhook/"
        + (key == null ? UUID.randomUUID().toString() : key);
    Instant now = settings.clock().instant();
    CloudEvent event;
    try {
      event = WebhookEvents.of(request, identity, now, settings);
    } catch (IllegalArgumentException e) {
      return WebhookReply.error(400, "Cannot accept webhook for " + target.deployment() + ": "
          + e.getMessage());
    }
    try {
      boolean added = jobs.enqueue(NewJob.builder(identity, target.deployment(), event).build());
      return WebhookReply.accepted(identity, added);
    } catch (SchedulerException | IllegalArgumentException e) {
      LOG.warn("Cannot enqueue webhook job {}", identity, e);
      return WebhookReply.error(503, "Cannot accept webhook for " + target.deployment()
          + ": the job could not be enqueued: " + e.getMessage());
    }
  }

  /** Null when the request carries a valid credential for {@code target}, else why not. */
  private String authenticate(WebhookRequest request, WebhookTarget target) {
    String authorization = request.header("authorization");
    if (authorization != null) {
      if (settings.adminToken() == null) {
        return "bearer tokens are not accepted here; sign the request";
      }
      boolean valid = authorization.startsWith("Bearer ") && MessageDigest.isEqual(
          authorization.substring(7).trim().getBytes(StandardCharsets.UTF_8),
          settings.adminToken().getBytes(StandardCharsets.UTF_8));
      return valid ? null : "the bearer token is not the admin token";
    }
    if (target.secret() == null) {
      return "deployment " + target.deployment() + " has no webhook secret; only the admin "
          + "token is accepted";
    }
    return WebhookSignature.verify(request, target.secret(), settings.clock().instant(),
        settings.tolerance());
  }

  private Optional<WebhookReply> route(String method, String path) {
    String deployment = deployment(path);
    if (deployment == null) {
      return Optional.of(WebhookReply.error(404, "Cannot accept webhook: " + path
          + " is not " + PREFIX + "<deployment>"));
    }
    if (targets.apply(deployment).isEmpty()) {
      return Optional.of(WebhookReply.error(404, "Cannot accept webhook: no deployment "
          + deployment + " with a webhook trigger"));
    }
    if (!"POST".equals(method)) {
      return Optional.of(WebhookReply.error(405, "Cannot accept webhook: " + method + " "
          + path + " (only POST)", Map.of("Allow", "POST")));
    }
    return Optional.empty();
  }

  /** The deployment a path names, or null when it is not {@code PREFIX<name>}. */
  private static String deployment(String path) {
    if (!serves(path)) {
      return null;
    }
    String name = path.substring(PREFIX.length());
    return name.isEmpty() || name.contains("/") ? null : name;
  }

  private boolean tooLarge(String contentLength) {
    try {
      return Long.parseLong(contentLength.trim()) > settings.maxBodyBytes();
    } catch (NumberFormatException e) {
      return false; // the server refuses a malformed length itself
    }
  }

  private WebhookReply tooLarge() {
    return WebhookReply.error(413, "Cannot accept webhook: the body exceeds "
        + settings.maxBodyBytes() + " bytes");
  }

  private static WebhookReply unauthorized(String deployment, String reason) {
    return WebhookReply.error(401, "Cannot accept webhook for " + deployment + ": " + reason,
        CHALLENGE);
  }
}
