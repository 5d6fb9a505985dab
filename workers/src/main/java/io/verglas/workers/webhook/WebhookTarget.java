package io.verglas.workers.webhook;

import java.util.Objects;

/**
 * One webhook trigger of a deployment, served at {@code POST /v1/webhooks/<deployment>/<trigger>}
 * (and at {@code /v1/webhooks/<deployment>} while it is the deployment's only webhook trigger),
 * and its signing secret.
 */
public record WebhookTarget(String deployment, String trigger, WebhookSecret secret) {
  public WebhookTarget {
    Objects.requireNonNull(deployment, "deployment");
    Objects.requireNonNull(trigger, "trigger");
    Objects.requireNonNull(secret, "secret");
  }

  /** A trigger signed with a fixed {@code secret}; null: the admin token only. */
  public static WebhookTarget of(String deployment, String trigger, String secret) {
    return new WebhookTarget(deployment, trigger,
        secret == null ? WebhookSecret.NONE : WebhookSecret.of(secret));
  }

  /** The trigger's own route, also the source of the events it makes. */
  public String path() {
    return WebhookEndpoint.PREFIX + deployment + "/" + trigger;
  }

  @Override
  public String toString() {
    return "WebhookTarget[" + deployment + "/" + trigger + "]"; // never the secret
  }
}
