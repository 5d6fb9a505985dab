package io.verglas.workers.webhook;

import io.cloudevents.CloudEvent;
import io.verglas.workers.schedule.JobSink;
import io.verglas.workers.schedule.NewJob;
import io.verglas.workers.schedule.SchedulerException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Webhook triggers: {@code POST /v1/webhooks/<deployment>/<trigger>} on the admin port turns
 * the request into a CloudEvent ({@link WebhookEvents}) and enqueues one job of the deployment.
 * Each webhook trigger of a deployment has its route and its own secret; the short route
 * {@code POST /v1/webhooks/<deployment>} serves a deployment that has exactly one webhook
 * trigger, and is 409 (naming the routes) for one with several.
 *
 * <p>Serving. Framework-free, so the admin server mounts it with a route: {@link #check} on the
 * request head (no blocking; refuses an unknown path, deployment or trigger, a wrong method, a missing
 * credential, a declared body too large) before a byte of body is buffered, then
 * {@link #handle} with the whole body, off the event loop (it enqueues on PostgreSQL).
 *
 * <p>Authentication, one of: {@code Authorization: Bearer <admin token>} (the stack's operators
 * and internal callers), or a Standard Webhooks signature with the trigger's own secret
 * ({@link WebhookSignature}; what senders such as Svix implement, and the shape of Stripe's and
 * GitHub's HMAC schemes), read as the request is verified ({@link WebhookSecret}). A wrong or missing credential is 401 with {@code WWW-Authenticate};
 * the reason is named, never the expected value.
 *
 * <p>Idempotency. The job identity is {@code <deployment>/webhook/<trigger>/<key>} with the key from
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
  private final Function<String, List<WebhookTarget>> targets;
  private final JobSink jobs;

  /**
   * @param targets the webhook triggers of a deployment (none: empty); called on the event
   *     loop by {@link #check}, so it must not block (an in-memory view of the deployments)
   * @param jobs where the jobs go ({@code Dispatcher::submit} runs them at once)
   */
  public WebhookEndpoint(WebhookSettings settings,
      Function<String, List<WebhookTarget>> targets, JobSink jobs) {
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
    Route route = route(method, path);
    if (route.refusal() != null) {
      return Optional.of(route.refusal());
    }
    String length = lower.get("content-length");
    if (length != null && tooLarge(length)) {
      return Optional.of(tooLarge());
    }
    if (!lower.containsKey("authorization") && !lower.containsKey(WebhookSignature.SIGNATURE)) {
      return Optional.of(unauthorized(route.target(), "no credential: send "
          + "Authorization: Bearer <admin token> or a " + WebhookSignature.SIGNATURE + " header"));
    }
    return Optional.empty();
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
    WebhookTarget target = route(request.method(), request.path()).target();
    String denied = authenticate(request, target);
    if (denied != null) {
      return unauthorized(target, denied);
    }
    return enqueue(request, target);
  }

  private WebhookReply enqueue(WebhookRequest request, WebhookTarget target) {
    String key = request.header(IDEMPOTENCY_KEY);
    if (key == null) {
      key = request.header(WebhookSignature.ID);
    }
    if (key != null && !KEY.matcher(key).matches()) {
      return WebhookReply.error(400, "Cannot accept webhook for " + target.path()
          + ": the idempotency key must be 1 to 200 visible ASCII characters");
    }
    String identity = target.deployment() + "/webhook/" + target.trigger() + "/"
        + (key == null ? UUID.randomUUID().toString() : key);
    Instant now = settings.clock().instant();
    CloudEvent event;
    try {
      event = WebhookEvents.of(request, target.path(), identity, now, settings);
    } catch (IllegalArgumentException e) {
      return WebhookReply.error(400, "Cannot accept webhook for " + target.path() + ": "
          + e.getMessage());
    }
    try {
      boolean added = jobs.enqueue(NewJob.builder(identity, target.deployment(), event).build());
      return WebhookReply.accepted(identity, added);
    } catch (SchedulerException | IllegalArgumentException e) {
      LOG.warn("Cannot enqueue webhook job {}", identity, e);
      return WebhookReply.error(503, "Cannot accept webhook for " + target.path()
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
    Optional<String> secret = target.secret().current();
    if (secret.isEmpty()) {
      return "webhook trigger " + target.trigger() + " of " + target.deployment()
          + " has no webhook secret; only the admin token is accepted";
    }
    return WebhookSignature.verify(request, secret.get(), settings.clock().instant(),
        settings.tolerance());
  }

  /** The target a request head names, or the refusal to send. */
  private record Route(WebhookTarget target, WebhookReply refusal) {
    static Route refused(int status, String message) {
      return new Route(null, WebhookReply.error(status, "Cannot accept webhook: " + message));
    }
  }

  private Route route(String method, String path) {
    String[] names = serves(path) ? path.substring(PREFIX.length()).split("/", -1) : new String[0];
    if (names.length < 1 || names.length > 2 || Arrays.asList(names).contains("")) {
      return Route.refused(404, path + " is not " + PREFIX + "<deployment>[/<trigger>]");
    }
    List<WebhookTarget> served = targets.apply(names[0]);
    if (served.isEmpty()) {
      return Route.refused(404, "no deployment " + names[0] + " with a webhook trigger");
    }
    List<String> triggers = served.stream().map(WebhookTarget::trigger).toList();
    Optional<WebhookTarget> target = names.length == 2
        ? served.stream().filter(t -> t.trigger().equals(names[1])).findFirst()
        : served.size() == 1 ? Optional.of(served.get(0)) : Optional.empty();
    if (target.isEmpty() && names.length == 2) {
      return Route.refused(404, "deployment " + names[0] + " has no webhook trigger '"
          + names[1] + "' (its webhook triggers: " + triggers + ")");
    }
    if (target.isEmpty()) {
      return Route.refused(409, "deployment " + names[0] + " has " + served.size()
          + " webhook triggers " + triggers + "; POST to " + PREFIX + names[0] + "/<trigger>");
    }
    if (!"POST".equals(method)) {
      return new Route(null, WebhookReply.error(405, "Cannot accept webhook: " + method + " "
          + path + " (only POST)", Map.of("Allow", "POST")));
    }
    return new Route(target.get(), null);
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

  private static WebhookReply unauthorized(WebhookTarget target, String reason) {
    return WebhookReply.error(401, "Cannot accept webhook for " + target.path() + ": " + reason,
        CHALLENGE);
  }
}
