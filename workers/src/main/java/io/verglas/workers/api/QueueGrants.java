package io.verglas.workers.api;

import io.verglas.queue.log.QueueLayout;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The queues a deployment may publish to and consume from (each verb granted on its own).
 * Enforced, like table grants, where a worker reaches queues: its {@link WorkerContext}.
 */
public record QueueGrants(Set<String> publish, Set<String> consume) {
  private static final QueueGrants NONE = new QueueGrants(Set.of(), Set.of());

  public QueueGrants {
    publish = checked(publish);
    consume = checked(consume);
  }

  /** No queue at all: what a deployment record without queue grants means. */
  public static QueueGrants none() {
    return NONE;
  }

  public static QueueGrants of(Collection<String> publish, Collection<String> consume) {
    return new QueueGrants(Set.copyOf(publish), Set.copyOf(consume));
  }

  public boolean isEmpty() {
    return publish.isEmpty() && consume.isEmpty();
  }

  /** @throws DataGrantException if {@code deployment} may not publish to {@code queue} */
  public void checkPublish(String deployment, String queue) {
    check("publish to", publish, deployment, queue);
  }

  /** @throws DataGrantException if {@code deployment} may not consume from {@code queue} */
  public void checkConsume(String deployment, String queue) {
    check("consume from", consume, deployment, queue);
  }

  private static void check(String verb, Set<String> granted, String deployment, String queue) {
    if (!granted.contains(queue)) {
      String grant = verb.substring(0, verb.indexOf(' '));
      throw new DataGrantException("Cannot " + verb + " queue " + queue + ": deployment "
          + deployment + " is not granted " + grant + " on it (granted " + grant + ": "
          + List.copyOf(new TreeSet<>(granted)) + ")");
    }
  }

  private static Set<String> checked(Set<String> queues) {
    queues.forEach(QueueLayout::checkQueue);
    return Set.copyOf(queues);
  }
}
