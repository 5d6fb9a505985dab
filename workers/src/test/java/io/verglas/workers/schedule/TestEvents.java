package io.verglas.workers.schedule;

import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;

/** Manual-trigger CloudEvents for queue tests. */
public final class TestEvents {
  private TestEvents() {}

  public static CloudEvent manual(String id) {
    return CloudEventBuilder.v1().withId(id).withSource(URI.create("/test"))
        .withType("io.verglas.manual").build();
  }

  public static NewJob job(String identity) {
    return NewJob.builder(identity, "dep", manual(identity)).build();
  }
}
