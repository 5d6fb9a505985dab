package io.verglas.cli.local;

import io.verglas.cli.flink.FlinkRestClient;
import io.verglas.cli.flink.FlinkRestException;
import io.verglas.cli.flink.JobJar;
import io.verglas.cli.flink.JobRun;
import io.verglas.cli.flink.JobSubmitter;
import io.verglas.store.ObjectStoreEndpoint;
import io.verglas.wal.WalLayout;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stack's two jobs on a Flink session cluster ({@code verglas local --flink-cluster URL})
 * instead of MiniClusters: their jars submitted over the cluster's REST API with the arguments
 * of their command-line form, and cancelled by {@link #close()}.
 *
 * <p>The cluster's configuration decides the state backend and where checkpoints and
 * savepoints go (for {@code flink-conf/}: RocksDB, incremental, to object storage). At stop the
 * materializer is stopped with a savepoint, whose path goes to {@link LocalConfig#clusterSavepointFile()};
 * the next start resumes from it, so the key index survives restarts as on the MiniCluster path
 * (when the savepoint fails, the job is cancelled and the next start begins without state, as
 * a warning says). The maintenance job is cancelled (what it missed, its sweep finds). The
 * arguments carry the jobs' credentials (S3 key pair, feed token): whoever can read the
 * cluster's logs or REST API can read them, as with {@code flink run}.
 */
final class ClusterJobs implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterJobs.class);

  private static final Duration SAVEPOINT_TIMEOUT = Duration.ofMinutes(2);

  private final FlinkRestClient rest;
  private final Path savepointFile;
  private final List<String> jobIds = new ArrayList<>();

  private ClusterJobs(FlinkRestClient rest, Path savepointFile) {
    this.rest = rest;
    this.savepointFile = savepointFile;
  }

  /** Where the jobs' catalog, S3 endpoint and change feed are. */
  record Wiring(String catalogName, Map<String, String> catalogProperties, ObjectStoreEndpoint s3,
      URI feedUri, String feedToken, Path outboxes) {}

  static ClusterJobs submit(URI cluster, Wiring wiring, LocalConfig config, long feedFrom,
      PrintStream progress) {
    ClusterJobs jobs = new ClusterJobs(new FlinkRestClient(cluster), config.clusterSavepointFile());
    JobSubmitter submitter = new JobSubmitter(jobs.rest, progress);
    try {
      String savepoint = jobs.lastSavepoint();
      if (savepoint != null) {
        progress.println("The materializer resumes from " + savepoint);
      }
      jobs.jobIds.add(submitter.submit(JobJar.resolve(JobJar.MATERIALIZER),
          new JobRun(JobJar.resolve(JobJar.MATERIALIZER).entryClass(),
              materializerArgs(wiring, config), config.parallelism(), savepoint)));
      jobs.jobIds.add(submitter.submit(JobJar.resolve(JobJar.MAINTENANCE),
          run(JobJar.MAINTENANCE, maintenanceArgs(wiring, feedFrom), 1)));
      return jobs;
    } catch (RuntimeException e) {
      jobs.close();
      throw e;
    }
  }

  String materializerId() { return jobIds.isEmpty() ? null : jobIds.get(0); }
  String maintenanceId() { return jobIds.size() < 2 ? null : jobIds.get(1); }

  /** The job's state as the cluster reports it. */
  String status(String jobId) {
    if (jobId == null) {
      return "unknown";
    }
    try {
      return rest.jobState(jobId);
    } catch (FlinkRestException e) {
      return "unreachable: " + e.getMessage();
    }
  }

  private static JobRun run(String job, List<String> args, int parallelism) {
    return new JobRun(JobJar.resolve(job).entryClass(), args, parallelism, null);
  }

  static List<String> materializerArgs(Wiring w, LocalConfig config) {
    List<String> args = common(w);
    ObjectStoreEndpoint s3 = w.s3();
    args.add("--s3.endpoint=" + s3.endpoint());
    args.add("--s3.region=" + s3.region());
    args.add("--s3.access-key=" + s3.accessKey());
    args.add("--s3.secret-key=" + s3.secretKey());
    args.add("--s3.bucket=" + s3.bucket());
    args.add("--wal.prefix=" + WalLayout.DEFAULT_PREFIX);
    args.add("--events.uri=" + w.feedUri());
    args.add("--events.token=" + w.feedToken());
    args.add("--events.outbox-dir=" + w.outboxes().resolve("materializer"));
    args.add("--checkpoint-interval=" + millis(config.checkpointInterval()));
    args.add("--parallelism=" + config.parallelism());
    args.add("--committer.parallelism=" + config.committerParallelism());
    return args;
  }

  static List<String> maintenanceArgs(Wiring w, long feedFrom) {
    List<String> args = common(w);
    args.add("--feed.uri=" + w.feedUri());
    args.add("--feed.token=" + w.feedToken());
    args.add("--feed.outbox-dir=" + w.outboxes().resolve("maintenance"));
    args.add("--feed.from=" + feedFrom);
    args.add("--parallelism=1");
    return args;
  }

  private static List<String> common(Wiring w) {
    List<String> args = new ArrayList<>();
    args.add("--catalog-name=" + w.catalogName());
    w.catalogProperties().forEach((key, value) -> args.add("--catalog." + key + "=" + value));
    return args;
  }

  private static String millis(Duration duration) {
    return duration.toMillis() + "ms";
  }

  /**
   * Stops the materializer with a savepoint (recorded for the next start) and cancels the
   * maintenance job; safe to call twice.
   */
  @Override
  public synchronized void close() {
    String materializer = materializerId();
    if (materializer != null) {
      try {
        String savepoint = rest.stopWithSavepoint(materializer, null, SAVEPOINT_TIMEOUT);
        Files.writeString(savepointFile, savepoint + "\n");
        LOG.info("The materializer stopped with the savepoint {}", savepoint);
        jobIds.remove(materializer);
      } catch (FlinkRestException | IOException e) {
        LOG.warn("Cannot stop the materializer with a savepoint ({}): cancelling it; the next "
            + "start begins without its key index", e.getMessage());
      }
    }
    for (String jobId : jobIds) {
      try {
        rest.cancel(jobId);
      } catch (FlinkRestException e) {
        LOG.warn("Cannot cancel the job {}: {}", jobId, e.getMessage());
      }
    }
    jobIds.clear();
  }

  /** The savepoint the materializer last stopped with, or null. */
  private String lastSavepoint() {
    try {
      return Files.exists(savepointFile) ? Files.readString(savepointFile).strip() : null;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + savepointFile + ": " + e.getMessage(), e);
    }
  }
}
