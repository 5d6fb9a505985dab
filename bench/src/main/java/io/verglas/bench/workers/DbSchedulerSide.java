package io.verglas.bench.workers;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The peer: db-scheduler 16.7.1 one-time tasks on the same PostgreSQL, in a schema of its own,
 * configured for its lowest latency: immediate execution on (a job scheduled for now by this
 * instance wakes its executor at once) and 100 ms polling. Its connections come from a Hikari
 * pool, as db-scheduler's documentation recommends, so the peer pays no connect per statement.
 */
final class DbSchedulerSide implements SchedulerSide {
  static final Duration POLLING = Duration.ofMillis(100);
  private final HikariDataSource dataSource;
  private final OneTimeTask<Void> task;
  private final String schema;
  private final int threads;
  private final SchedulerClient client;
  private Scheduler scheduler;

  DbSchedulerSide(String url, String user, String schema, DispatchProbe probe, int threads)
      throws Exception {
    this.schema = schema;
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema);
    config.setUsername(user);
    config.setMaximumPoolSize(threads + 4);
    config.setPoolName("db-scheduler-bench");
    this.dataSource = new HikariDataSource(config);
    createTable();
    this.task = Tasks.oneTime("bench").execute((instance, context) -> {
      probe.started(instance.getId());
      probe.finished();
    });
    this.threads = threads;
    this.client = SchedulerClient.Builder.create(dataSource, task).build();
    startConsumer();
  }

  @Override
  public void startConsumer() {
    scheduler = Scheduler.create(dataSource, task).threads(threads)
        .pollingInterval(POLLING).enableImmediateExecution()
        .shutdownMaxWait(Duration.ofSeconds(2)).build();
    scheduler.start();
  }

  @Override
  public void stopConsumer() {
    scheduler.stop();
  }

  @Override
  public void enqueueAll(List<String> ids) {
    List<TaskInstance<?>> instances = new ArrayList<>(ids.size());
    ids.forEach(id -> instances.add(task.instance(id)));
    client.scheduleBatch(instances, Instant.now());
  }

  private void createTable() throws Exception {
    try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
      st.execute("create schema if not exists " + schema);
      st.execute("set search_path to " + schema);
      st.execute(ddl());
    }
  }

  private static String ddl() throws IOException {
    try (InputStream in = DbSchedulerSide.class.getResourceAsStream("db_scheduler_tables.sql")) {
      if (in == null) {
        throw new IOException("Cannot find db_scheduler_tables.sql");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Override
  public String name() {
    return "db_scheduler";
  }

  @Override
  public void enqueue(String id) {
    scheduler.schedule(task.instance(id), Instant.now());
  }

  /**
   * Schedules through a {@link SchedulerClient}, as a producer in another process would: the
   * running scheduler finds the job by polling (immediate execution wakes only the instance
   * that scheduled it).
   */
  void enqueueFromAnotherProducer(String id) {
    client.schedule(task.instance(id), Instant.now());
  }

  @Override
  public void close() throws Exception {
    scheduler.stop();
    try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
      st.execute("drop schema if exists " + schema + " cascade");
    }
    dataSource.close();
  }
}
