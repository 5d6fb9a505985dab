package io.verglas.bench.workers;

import io.cloudevents.core.builder.CloudEventBuilder;
import io.verglas.workers.schedule.Database;
import io.verglas.workers.schedule.Dispatcher;
import io.verglas.workers.schedule.JobQueue;
import io.verglas.workers.schedule.NewJob;
import io.verglas.workers.schedule.QueueSettings;
import java.net.URI;

/**
 * Our scheduler: a {@link Dispatcher} woken by NOTIFY, and a producer {@link JobQueue} on a
 * connection of its own (the producer is another process in production: the event API).
 */
final class VerglasSide implements SchedulerSide {
  private static final URI SOURCE = URI.create("/verglas/bench/workers");
  private final Database database;
  private final Dispatcher dispatcher;
  private final JobQueue producer;

  VerglasSide(Database database, DispatchProbe probe, int threads) {
    this.database = database;
    this.dispatcher = Dispatcher.builder(database, lease -> {
      probe.started(lease.identity());
      probe.finished();
    }).owner("bench").concurrency(threads).build().start();
    this.producer = new JobQueue(database, QueueSettings.defaults());
  }

  @Override
  public String name() {
    return "verglas";
  }

  @Override
  public void enqueue(String id) {
    producer.enqueue(NewJob.builder(id, "bench", CloudEventBuilder.v1().withId(id)
        .withSource(SOURCE).withType("io.verglas.manual").build()).build());
  }

  @Override
  public void close() throws Exception {
    dispatcher.close();
    producer.close();
    database.dropSchema();
  }
}
