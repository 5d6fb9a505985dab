package io.verglas.workers.api;

import io.cloudevents.CloudEvent;
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
