package io.verglas.workers.subscribe;

import io.cloudevents.CloudEvent;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A CloudEvent subscription of a deployment: events of exactly {@code type}, and when given of
 * exactly {@code source} and {@code subject}, each run the deployment once. An Iceberg commit
 * on the change feed is type {@code org.apache.iceberg.snapshot.committed} with the table
 * ({@code ns.t}) as subject.
 *
 * @param name the subscription's name within its deployment (part of each job's identity)
 * @param source null for any source
 * @param subject null for any subject
 */
public record Subscription(String deployment, String name, String type, String source,
    String subject) {
  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");

  public Subscription {
    Objects.requireNonNull(deployment, "deployment");
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("Invalid subscription name of deployment " + deployment
          + ": '" + name + "' (lower-case letters, digits, '_' and '-', at most 63)");
    }
    if (type == null || type.isBlank()) {
      throw new IllegalArgumentException("Invalid subscription " + deployment + "/" + name
          + ": the event type is empty");
    }
  }

  public boolean matches(CloudEvent event) {
    return type.equals(event.getType())
        && (source == null || source.equals(String.valueOf(event.getSource())))
        && (subject == null || subject.equals(event.getSubject()));
  }

  /** The identity of the job of {@code event}: one job per subscription and event id. */
  public String jobIdentity(CloudEvent event) {
    return deployment + "/" + name + "/" + event.getId();
  }
}
