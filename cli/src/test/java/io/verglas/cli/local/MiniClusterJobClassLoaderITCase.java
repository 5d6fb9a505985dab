package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.xml.stream.XMLInputFactory;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A JVM-wide pool whose threads a task of a {@link MiniClusterJob} started (as Iceberg's
 * {@code S3FileIO} delete pool and worker pool, first used by the maintenance job) keeps working
 * for the rest of the process after that job ended: its threads inherited the task's context
 * class loader, which Flink closes with the job, and the AWS SDK looks up its XML parser through
 * that loader ({@code XMLInputFactory.newInstance()}, as {@code S3FileIO.deleteFiles} does when
 * a table is dropped with purge).
 */
class MiniClusterJobClassLoaderITCase {
  /** Static as Iceberg's pools are: the task reaches it through the application's class. */
  private static final ExecutorService SHARED = Executors.newSingleThreadExecutor();

  @AfterAll
  static void stopPool() {
    SHARED.shutdownNow();
  }

  @Test
  void poolThreadStartedByTaskOutlivesTheJob() throws Exception {
    try (MiniClusterJob job = MiniClusterJob.start("classloader-check", new Configuration(), 1,
        env -> env.fromData(1).map(MiniClusterJobClassLoaderITCase::startPoolThread)
            .sinkTo(new DiscardingSink<>()))) {
      job.client().getJobExecutionResult().get(60, TimeUnit.SECONDS);
    }

    // the job is over and its cluster stopped: the same thread parses as the SDK does
    String parser = SHARED.submit(() -> XMLInputFactory.newInstance().getClass().getName())
        .get(30, TimeUnit.SECONDS);

    assertThat(parser).isNotEmpty();
  }

  private static int startPoolThread(int value) throws Exception {
    return SHARED.submit(() -> value).get();
  }
}
