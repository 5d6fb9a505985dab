package io.verglas.cli.local;

import io.verglas.cli.flink.FlinkRestClient;
import io.verglas.cli.flink.FlinkRestException;
import io.verglas.cli.flink.JobJar;
import io.verglas.cli.flink.JobRun;
import io.verglas.cli.flink.JobSubmitter;
import io.verglas.store.ObjectStoreEndpoint;
import io.verglas.wal.WalLayout;
import java.io.PrintStream;
import java.net.URI;
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
 * <p>The cluster's configuration decides the state backend and where checkpoints go (for
 * {@code flink-conf/}: RocksDB, incremental, to object storage); the materializer does not
 * resume from them when the stack starts again (the MiniCluster path does, from the data
 * directory's checkpoints): resubmit with {@code verglas submit --from-savepoint} for that. The
 * arguments carry the jobs' credentials (S3 key pair, feed token): whoever can read the
 * cluster's logs or REST API can read them, as with {@code flink run}.
 */
final class ClusterJobs implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterJobs.class);

  private final FlinkRestClient rest;
  private final List<String> jobIds = new ArrayList<>();

  private ClusterJobs(FlinkRestClient rest) {
    this.rest = rest;
  }

  /** Where the jobs' catalog, S3 endpoint and change feed are. */
  record Wiring(String catalogName, Map<String, String> catalogProperties, ObjectStoreEndpoint s3,
      URI feedUri, String feedToken, Path outboxes) {}

  static ClusterJobs submit(URI cluster, Wiring wiring, LocalConfig config, long feedFrom,
      PrintStream progress) {
    ClusterJobs jobs = new ClusterJobs(new FlinkRestClient(cluster));
    JobSubmitter submitter = new JobSubmitter(jobs.rest, progress);
    try {
      jobs.jobIds.add(submitter.submit(JobJar.resolve(JobJar.MATERIALIZER),
          run(JobJar.MATERIALIZER, materializerArgs(wiring, config), config.parallelism())));
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

  /** Cancels the submitted jobs (their retained checkpoints stay); safe to call twice. */
  @Override
  public synchronized void close() {
    for (String jobId : jobIds) {
      try {
        rest.cancel(jobId);
      } catch (FlinkRestException e) {
        LOG.warn("Cannot cancel the job {}: {}", jobId, e.getMessage());
      }
    }
    jobIds.clear();
  }
}
