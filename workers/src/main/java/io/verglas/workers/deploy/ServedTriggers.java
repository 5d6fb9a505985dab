package io.verglas.workers.deploy;

import io.verglas.workers.subscribe.Subscription;
import io.verglas.workers.webhook.WebhookSecret;
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
 * the change feed subscriber's subscriptions. Each webhook trigger is a target of its own,
 * signed with its own secret, read through its reference at most {@value
 * CachedSecret#TTL_SECONDS} s before a request is verified (a rotated secret applies without a
 * redeploy).
 */
public record ServedTriggers(Map<String, List<WebhookTarget>> webhooks,
    List<Subscription> subscriptions) {
  public static final ServedTriggers NONE = new ServedTriggers(Map.of(), List.of());
  private static final Logger LOG = LoggerFactory.getLogger(ServedTriggers.class);

  public ServedTriggers {
    Map<String, List<WebhookTarget>> copy = new LinkedHashMap<>();
    webhooks.forEach((name, targets) -> copy.put(name, List.copyOf(targets)));
    webhooks = Map.copyOf(copy);
    subscriptions = List.copyOf(subscriptions);
  }

  /**
   * The triggers of {@code active} revisions, webhook secrets resolved from {@code env}. A
   * secret that does not resolve leaves its trigger to the admin token (logged); an event
   * trigger whose name cannot name a subscription is left out (logged).
   */
  static ServedTriggers of(List<DeploymentRevision> active, Map<String, String> env) {
    Map<String, List<WebhookTarget>> webhooks = new LinkedHashMap<>();
    List<Subscription> subscriptions = new ArrayList<>();
    for (DeploymentRevision revision : active) {
      String name = revision.name();
      for (TriggerSpec trigger : revision.record().triggers()) {
        if (trigger instanceof TriggerSpec.Webhook w) {
          webhooks.computeIfAbsent(name, n -> new ArrayList<>()).add(new WebhookTarget(name,
              w.name(), w.secret() == null ? WebhookSecret.NONE
                  : CachedSecret.of(name, w.name(), w.secret(), env)));
        } else if (trigger instanceof TriggerSpec.Event e) {
          subscription(name, e).ifPresent(subscriptions::add);
        }
      }
    }
    return new ServedTriggers(webhooks, subscriptions);
  }

  /** The webhook triggers of {@code deployment}, if an active revision has any (else empty). */
  public List<WebhookTarget> webhooks(String deployment) {
    return webhooks.getOrDefault(deployment, List.of());
  }

  /** How many webhook routes there are: one per webhook trigger. */
  public int webhookRoutes() {
    return webhooks.values().stream().mapToInt(List::size).sum();
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
