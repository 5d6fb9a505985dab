package io.verglas.events;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The process that crashes in {@link HttpEventPublisherTest}: publishes {@code count} events to
 * a feed that is down, says "published" on stdout and waits to be killed, never closing the
 * publisher. Arguments: feed URI, outbox directory, count.
 */
public final class OutboxCrashChild {
  static final String PUBLISHED = "published";

  private OutboxCrashChild() {}

  public static void main(String[] args) throws InterruptedException {
    HttpEventPublisher publisher = HttpEventPublisher.builder(URI.create(args[0]))
        .outboxDir(Path.of(args[1])).requestTimeout(Duration.ofSeconds(1)).build();
    int count = Integer.parseInt(args[2]);
    for (int i = 1; i <= count; i++) {
      publisher.publish(TestingEvents.commit("ns.t", i));
    }
    System.out.println(PUBLISHED);
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE); // killed here
  }
}
