package io.verglas.workers.api;

import io.cloudevents.CloudEvent;
import io.verglas.queue.QueueMessage;
import io.verglas.queue.QueuePosition;
import io.verglas.sdk.QueueClient;
import java.util.List;
import java.util.Map;

/** What one run of a {@link Worker} is given. */
public interface WorkerContext {
  /** The deployment this run belongs to. */
  String deployment();

  /** The event that triggered the run (a cron tick, a webhook request, a commit). */
  CloudEvent trigger();

  /**
   * A table the deployment is granted ({@code ns.t}); commits need a write grant.
   *
   * @throws DataGrantException if the deployment is granted no access to it
   */
  WorkerTable table(String table);

  /**
   * The output table configured under {@code name}.
   *
   * @throws IllegalArgumentException if no output has that name
   */
  WorkerTable output(String name);

  /**
   * Publishes {@code messages} to {@code queue} as one batch and returns the first one's
   * position once they are durable. A message without a key gets the key of its place in the
   * run ({@code deployment/identity/p<publish ordinal>.<index>}), the same in every run of the
   * trigger: a re-dispatched run publishes again (at-least-once), and consumers drop repeats by
   * key.
   *
   * @throws DataGrantException if the deployment is not granted publishing to {@code queue}
   */
  QueuePosition publish(String queue, List<QueueMessage> messages);

  /**
   * Leases the next messages of consumer {@code group} on {@code queue}, runs {@code handler}
   * on them and acknowledges them; returns how many (0: nothing to lease). A handler that
   * throws, or a run killed before the acknowledgement, leaves them for redelivery. A run's
   * later commits are keyed by what it consumed too: a re-dispatched run that is given the
   * same messages makes commits the table absorbs, one given other messages makes new ones.
   *
   * @throws DataGrantException if the deployment is not granted consuming from {@code queue}
   */
  int consume(String queue, String group, QueueClient.Handler handler);

  /** Output names to the tables they name, as the deployment configures them. */
  Map<String, String> outputs();

  /** The deployment's configuration. */
  Map<String, String> config();

  /**
   * The secret named {@code name}.
   *
   * @throws IllegalArgumentException if the deployment has no such secret
   */
  String secret(String name);

  /** Messages that go to the deployment's run log. */
  WorkerLog log();
}
