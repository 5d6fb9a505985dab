package io.verglas.bench.workers;

import io.cloudevents.core.builder.CloudEventBuilder;
import io.verglas.workers.schedule.Database;
import io.verglas.workers.schedule.Dispatcher;
import io.verglas.workers.schedule.JobQueue;
import io.verglas.workers.schedule.NewJob;
import io.verglas.workers.schedule.QueueSettings;
import java.net.URI;
import java.util.List;

/**
 * Our scheduler: a {@link Dispatcher} (local submits run at once; other producers' jobs wake
 * it through NOTIFY) and a producer {@link JobQueue} on a connection of its own, standing for
 * an event API in another process.
 */
final class VerglasSide implements SchedulerSide {
  private static final URI SOURCE = URI.create("/verglas/bench/workers");
  private final Database database;
  private final DispatchProbe probe;
  private final int threads;
  private final JobQueue producer;
  private Dispatcher dispatcher;

  VerglasSide(Database database, DispatchProbe probe, int threads) {
    this.database = database;
    this.probe = probe;
    this.threads = threads;
    startConsumer();
    this.producer = new JobQueue(database, QueueSettings.defaults());
  }

  @Override
  public String name() {
    return "verglas";
  }

  /** Submits in the dispatcher's process: the job is leased in the enqueue and runs at once. */
  @Override
  public void enqueue(String id) {
    dispatcher.submit(job(id));
  }

  /** Enqueues through a producer of its own: the dispatcher hears of it through NOTIFY. */
  void enqueueFromAnotherProducer(String id) {
    producer.enqueue(job(id));
  }

  @Override
  public void enqueueAll(List<String> ids) {
    producer.enqueueAll(ids.stream().map(VerglasSide::job).toList());
  }

  private static NewJob job(String id) {
    return NewJob.builder(id, "bench", CloudEventBuilder.v1().withId(id).withSource(SOURCE)
        .withType("io.verglas.manual").build()).build();
  }

  @Override
  public void stopConsumer() {
    dispatcher.close();
  }

  @Override
  public void startConsumer() {
    dispatcher = Dispatcher.builder(database, lease -> {
      probe.started(lease.identity());
      probe.finished();
    }).owner("bench").concurrency(threads).build().start();
  }

  @Override
  public void close() throws Exception {
    dispatcher.close();
    producer.close();
    database.dropSchema();
  }
}
