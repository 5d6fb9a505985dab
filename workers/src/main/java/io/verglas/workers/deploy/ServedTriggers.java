package io.verglas.workers.deploy;

import io.verglas.workers.subscribe.Subscription;
import io.verglas.workers.webhook.WebhookTarget;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The webhook and event triggers of the active revisions, as one refresh of the local plane
 * saw them: the webhook route's targets (an in-memory map, read on the HTTP event loop) and
 * the change feed subscriber's subscriptions. A deployment with several webhook triggers has
 * one route; the first trigger's secret signs it.
 */
public record ServedTriggers(Map<String, WebhookTarget> webhooks, List<Subscription> subscriptions) {
  public static final ServedTriggers NONE = new ServedTriggers(Map.of(), List.of());
  private static final Logger LOG = LoggerFactory.getLogger(ServedTriggers.class);

  public ServedTriggers {
    webhooks = Map.copyOf(webhooks);
    subscriptions = List.copyOf(subscriptions);
  }

  /**
   * The triggers of {@code active} revisions, webhook secrets resolved from {@code env}. A
   * secret that does not resolve leaves its route to the admin token (logged); an event trigger
   * whose name cannot name a subscription is left out (logged).
   */
  static ServedTriggers of(List<DeploymentRevision> active, Map<String, String> env) {
    Map<String, WebhookTarget> webhooks = new LinkedHashMap<>();
    List<Subscription> subscriptions = new ArrayList<>();
    for (DeploymentRevision revision : active) {
      String name = revision.name();
      for (TriggerSpec trigger : revision.record().triggers()) {
        if (trigger instanceof TriggerSpec.Webhook w && !webhooks.containsKey(name)) {
          webhooks.put(name, new WebhookTarget(name, secret(name, w, env)));
        } else if (trigger instanceof TriggerSpec.Event e) {
          subscription(name, e).ifPresent(subscriptions::add);
        }
      }
    }
    return new ServedTriggers(webhooks, subscriptions);
  }

  /** The webhook target of {@code deployment}, if an active revision has a webhook trigger. */
  public Optional<WebhookTarget> webhook(String deployment) {
    return Optional.ofNullable(webhooks.get(deployment));
  }

  private static String secret(String deployment, TriggerSpec.Webhook trigger,
      Map<String, String> env) {
    if (trigger.secret() == null) {
      return null;
    }
    try {
      String value = SecretReferences.resolve(deployment, "webhook " + trigger.name(),
          trigger.secret(), env);
      return value.isEmpty() ? null : value;
    } catch (IllegalStateException e) {
      LOG.warn("{}; its webhook accepts the admin token only", e.getMessage());
      return null;
    }
  }

  private static Optional<Subscription> subscription(String deployment, TriggerSpec.Event e) {
    try {
      return Optional.of(new Subscription(deployment, e.name(), e.eventType(), e.source(),
          e.subject()));
    } catch (IllegalArgumentException invalid) {
      LOG.warn("Cannot subscribe event trigger {} of deployment {}: {}", e.name(), deployment,
          invalid.getMessage());
      return Optional.empty();
    }
  }
}
