package io.verglas.materializer;

import io.verglas.config.Settings;
import io.verglas.job.JobArguments;
import io.verglas.materializer.delta.IntervalStaging;
import io.verglas.store.ObjectStoreEndpoint;
import java.net.URI;
import java.nio.file.Path;

/**
 * The materializer job's command-line arguments ({@code --key=value} or {@code --key value}):
 * what {@link MaterializerConfig#fromArgs} parses and what the configuration reference
 * ({@code docs/configuration.md}) lists.
 */
public final class MaterializerSettings {
  private static final Settings<Args> SETTINGS = Settings.<Args>builder("Materializer job",
          "Arguments of the materializer job (`MaterializerJob`), as `--key=value` or "
              + "`--key value`, on `flink run` or `./verglas submit materializer -- ARGS`.")
      .add("catalog.", "PROPERTY=VALUE", "none", "Iceberg catalog properties (type, uri, "
          + "warehouse, io-impl, ...).",
          (a, k, v) -> a.config.catalogProperty(k.substring("catalog.".length()), v))
      .add("catalog-name", "NAME", MaterializerConfig.CATALOG_NAME_DEFAULT, "The catalog's name.",
          (a, k, v) -> a.config.catalogName(v))
      .add("s3.endpoint", "URI", "required", "S3 endpoint of the WAL's bucket.",
          (a, k, v) -> a.s3Endpoint = URI.create(v))
      .add("s3.region", "REGION", "us-east-1", "Region the S3 requests are signed for.",
          (a, k, v) -> a.region = v)
      .add("s3.access-key", "KEY", "required", "S3 access key.", (a, k, v) -> a.accessKey = v)
      .add("s3.secret-key", "SECRET", "required", "S3 secret key (never logged).",
          (a, k, v) -> a.secretKey = v)
      .add("s3.bucket", "BUCKET", "required", "Bucket of the WAL.", (a, k, v) -> a.bucket = v)
      .add("wal.prefix", "PREFIX", "_wal", "Key prefix of the WAL's segments in the bucket.",
          (a, k, v) -> a.config.walPrefix(v))
      .add("events.uri", "URI", "none", "Change feed (POST); events are dropped when absent.",
          (a, k, v) -> a.config.eventsUri(URI.create(v)))
      .add("events.token", "TOKEN", "none", "Bearer token of the feed's publish credential (sent "
          + "as Authorization: Bearer; never logged).", (a, k, v) -> a.config.eventsToken(v))
      .add("events.outbox-dir", "DIR", "materializer-<catalog hash> in "
          + "<java.io.tmpdir>/verglas-outbox", "Durable outbox: each commit's event is forced to "
          + "disk here before a background thread sends it, and waits there while the feed is "
          + "slow or down. On a cluster set a directory on persistent local disk (or one that "
          + "follows the job): the events of an outbox left on a lost disk, or on a host the "
          + "committer does not run on again, are not sent (their commits are in the catalog, "
          + "for the catalog poller).", (a, k, v) -> a.config.eventsOutboxDir(Path.of(v)))
      .add("events.outbox-max-bytes", "BYTES", "268435456", "Bound of the outbox on disk; when "
          + "full, the oldest undelivered events are dropped with an ERROR.",
          (a, k, v) -> a.config.eventsOutboxMaxBytes(JobArguments.number(k, v)))
      .add("checkpoint-interval", "DURATION",
          MaterializerConfig.CHECKPOINT_INTERVAL_DEFAULT.toMillis() + "ms",
          "How often the job checkpoints, and so commits (ms, or a number with ms/s/m/h).",
          (a, k, v) -> a.config.checkpointInterval(JobArguments.duration(k, v)))
      .add("checkpoint-dir", "URI", "the cluster's", "Sets RocksDB and incremental checkpoints "
          + "in the job's configuration; absent, the cluster's configuration decides.",
          (a, k, v) -> a.config.checkpointDir(v))
      .add("parallelism", "N", "the cluster's", "Source and writer parallelism (the committer's is "
          + "committer.parallelism).", (a, k, v) -> a.config.parallelism(JobArguments.count(k, v)))
      .add("discovery-interval", "DURATION",
          MaterializerConfig.DISCOVERY_INTERVAL_DEFAULT.toMillis() + "ms",
          "How often new WAL segments are listed.",
          (a, k, v) -> a.config.discoveryInterval(JobArguments.duration(k, v)))
      .add("writer.buffer-bytes", "BYTES",
          String.valueOf(MaterializerConfig.WRITER_BUFFER_BYTES_DEFAULT), "Per writer subtask, "
          + "the rows held (arriving, being flushed, in open data files); rows are flushed every "
          + "sixteenth of it, files close past half of it.",
          (a, k, v) -> a.config.writerBufferBytes(JobArguments.number(k, v)))
      .add("writer.max-open-tables", "N",
          String.valueOf(MaterializerConfig.WRITER_MAX_OPEN_TABLES_DEFAULT), "Per writer "
          + "subtask, the tables whose data files stay open between flushes; past it the least "
          + "recently written table's files close early and join the checkpoint as they are.",
          (a, k, v) -> a.config.writerMaxOpenTables(JobArguments.count(k, v)))
      .add("writer.open-file-bytes", "BYTES",
          String.valueOf(MaterializerConfig.WRITER_OPEN_FILE_BYTES_DEFAULT), "What each data "
          + "file being encoded counts in writer.buffer-bytes besides its rows (its Parquet "
          + "writer's page compression buffer and key-column bloom filters).",
          (a, k, v) -> a.config.writerOpenFileBytes(JobArguments.number(k, v)))
      .add("writer.index-cache-entries", "N",
          String.valueOf(MaterializerConfig.WRITER_INDEX_CACHE_ENTRIES_DEFAULT), "Key index "
          + "entries each writer subtask keeps on the heap (134 MB at most for the default); 0 "
          + "reads every entry from RocksDB.",
          (a, k, v) -> a.config.writerIndexCacheEntries(JobArguments.count(k, v)))
      .add("writer.interval-staging", "auto|always|never", "auto", "Which tables hold a "
          + "checkpoint's rows until the barrier, so that no version replaced within it reaches a "
          + "data file: auto (those whose keys change within a checkpoint), always, never.",
          (a, k, v) -> a.config.intervalStaging(IntervalStaging.parse(v)))
      .add("writer.row-id-wait", "DURATION",
          MaterializerConfig.WRITER_ROW_ID_WAIT_DEFAULT.toSeconds() + "s", "Format v3: how long "
          + "the new version of a key waits for the commit of its previous version's data file, "
          + "whose first_row_id gives the key's _row_id (then a fresh id).",
          (a, k, v) -> a.config.writerRowIdWait(JobArguments.duration(k, v)))
      .add("committer.threads", "N", String.valueOf(MaterializerConfig.COMMITTER_THREADS_DEFAULT),
          "Tables of one checkpoint committed at once (1 to "
          + MaterializerConfig.COMMITTER_THREADS_MAX + "); a checkpoint's commits all end before "
          + "the next checkpoint's begin.",
          (a, k, v) -> a.config.committerThreads(JobArguments.count(k, v)))
      .add("committer.parallelism", "N",
          String.valueOf(MaterializerConfig.COMMITTER_PARALLELISM_DEFAULT), "Committer subtasks, "
          + "tables keyed across them (each table committed by one; at most the job's max "
          + "parallelism, whose key groups they split). A checkpoint taken before the committer "
          + "was keyed restores only at 1.",
          (a, k, v) -> a.config.committerParallelism(JobArguments.count(k, v)))
      .build();

  private MaterializerSettings() {}

  public static Settings<?> settings() {
    return SETTINGS;
  }

  static MaterializerConfig parse(String... args) {
    Args parsed = new Args();
    JobArguments.apply(SETTINGS, parsed, args);
    return parsed.build();
  }

  /** The arguments as they are read: the config's builder and the object store's parts. */
  private static final class Args {
    final MaterializerConfig.Builder config = MaterializerConfig.builder();
    URI s3Endpoint;
    String region = "us-east-1";
    String accessKey;
    String secretKey;
    String bucket;

    MaterializerConfig build() {
      if (s3Endpoint == null || bucket == null || accessKey == null || secretKey == null) {
        throw new IllegalArgumentException("Missing argument: --s3.endpoint, --s3.bucket,"
            + " --s3.access-key and --s3.secret-key are required");
      }
      config.objectStore(new ObjectStoreEndpoint(s3Endpoint, region, accessKey, secretKey, bucket));
      return config.build();
    }
  }
}
