package io.verglas.ingest;

import io.verglas.access.BearerTokens;
import io.verglas.access.ScopedTokens;
import io.verglas.clock.HybridLogicalClock;
import io.verglas.ingest.flight.BearerAuthenticator;
import io.verglas.ingest.flight.IngestFlightProducer;
import io.verglas.ingest.flight.PutAdmission;
import io.verglas.ingest.flight.PutLimits;
import io.verglas.ingest.metrics.IngestMetrics;
import io.verglas.ingest.validation.RejectReason;
import io.verglas.ingest.table.TableCache;
import io.verglas.ingest.validation.BatchLimits;
import io.verglas.ingest.validation.BatchValidator;
import io.verglas.ingest.wal.GroupCommitter;
import io.verglas.ingest.wal.IngestLayout;
import io.verglas.ingest.wal.PutRetryPolicy;
import io.verglas.ingest.wal.S3SegmentStore;
import io.verglas.ingest.wal.SegmentStore;
import io.verglas.ingest.wal.WalWriterConfig;
import io.verglas.store.ObjectStoreEndpoint;
import io.verglas.wal.WalLayout;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.Catalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An Arrow Flight server that validates incoming rows against Iceberg tables and makes them
 * durable in a write-ahead log on object storage before acknowledging them.
 *
 * <p>One server owns one ingest stream ({@link Builder#streamId}), written through
 * {@link Builder#lanes} WAL streams at once (see {@link IngestLayout}); several servers run side
 * by side with different stream ids and no coordination. If two processes are started with the
 * same stream id, the later one takes the stream over (it claims a newer epoch) and the earlier
 * one is fenced at its next write: it fails what it holds and accepts no more writes (its
 * health action reports "fenced").
 *
 * <p>Lifecycle: {@link #start()} claims the stream, lists each lane to continue after its last
 * segment and restores the idempotency keys of the window, then opens the Flight port;
 * {@link #close()} writes every pending segment (acknowledging those batches), then stops the
 * Flight server.
 *
 * <p>The JVM needs {@code --add-opens=java.base/java.nio=ALL-UNNAMED} (Arrow).
 */
public final class IngestServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(IngestServer.class);
  private static final long SHUTDOWN_GRACE_SECONDS = 5;

  private final Builder config;
  private final BufferAllocator allocator;
  private final boolean ownsAllocator;
  private final IngestMetrics metrics = new IngestMetrics();
  private S3Client s3;
  private GroupCommitter committer;
  private ScheduledExecutorService maintenance;
  private IngestFlightProducer producer;
  private PutAdmission admission;
  private FlightServer flight;
  private boolean started;
  private boolean closed;

  private IngestServer(Builder config) {
    this.config = config;
    this.ownsAllocator = config.allocator == null;
    this.allocator = ownsAllocator ? new RootAllocator() : config.allocator;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Recovers the stream's position and starts serving.
   *
   * @throws IOException if the Flight port cannot be bound
   * @throws io.verglas.ingest.wal.SegmentStoreException if the WAL bucket cannot be listed
   */
  public synchronized IngestServer start() throws IOException {
    if (started) {
      throw new IllegalStateException("Cannot start ingest server: already started");
    }
    started = true;
    try {
      s3 = config.objectStore.newClient();
      SegmentStore store = new S3SegmentStore(s3, config.objectStore.bucket());
      committer = new GroupCommitter(config.streamId, new IngestLayout(config.walLayout), store,
          config.clock, config.walConfig(), metrics, owner());
      committer.start();
      startMaintenance();
      TableCache tables = new TableCache(config.catalog, config.schemaRefreshInterval);
      BatchValidator validator = new BatchValidator(config.batchLimits());
      BearerTokens tokens = new BearerTokens(config.token, config.scopedTokens);
      producer = new IngestFlightProducer(allocator, config.catalog, tables,
          validator, committer, metrics, tokens);
      admission = new PutAdmission(config.putLimits(), config.batchLimits(), metrics, allocator);
      FlightServer.Builder flightBuilder = FlightServer.builder(admission.allocator(),
              Location.forGrpcInsecure(config.host, config.port), producer)
          .headerAuthenticator(new BearerAuthenticator(tokens,
              () -> metrics.rejected(RejectReason.UNAUTHENTICATED)));
      flight = admission.installOn(flightBuilder).build().start();
      LOG.info("Ingest server for stream {} listening on {} ({})", config.streamId, location(),
          committer.status());
      return this;
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /** The bound port (the chosen one when the builder asked for port 0). */
  public synchronized int port() {
    if (flight == null) {
      throw new IllegalStateException("Cannot get port: server is not started");
    }
    return flight.getPort();
  }

  /** Where clients connect, e.g. {@code grpc+tcp://127.0.0.1:8815}. */
  public URI location() {
    return URI.create("grpc+tcp://" + config.host + ":" + port());
  }

  public String streamId() {
    return config.streamId;
  }

  /** This server's counters and latency histograms (also the {@code metrics} action). */
  public IngestMetrics metrics() {
    return metrics;
  }

  /** Deletes expired idempotency key journals now and then (they outlive their segments). */
  private void startMaintenance() {
    maintenance = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread thread = new Thread(r, "verglas-ingest-maintenance-" + config.streamId);
      thread.setDaemon(true);
      return thread;
    });
    long periodMillis = Math.max(1_000, config.idempotencyWindow.toMillis() / 4);
    maintenance.scheduleWithFixedDelay(() -> {
      try {
        int deleted = committer.expireKeyJournals();
        if (deleted > 0) {
          LOG.info("Deleted {} expired idempotency key journals of stream {}", deleted,
              config.streamId);
        }
      } catch (RuntimeException e) {
        LOG.warn("Cannot expire idempotency key journals of stream {}: {}", config.streamId,
            e.toString());
      }
    }, 0, periodMillis, TimeUnit.MILLISECONDS);
  }

  /** Who claims the stream, as recorded in the claim object (for operators). */
  private static String owner() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      host = "unknown-host";
    }
    return host + "/" + ManagementFactory.getRuntimeMXBean().getPid() + "/" + UUID.randomUUID();
  }

  /** Writes pending segments (acknowledging their batches), then stops serving. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (maintenance != null) {
      maintenance.shutdownNow();
    }
    if (committer != null) {
      committer.close();
    }
    if (producer != null) {
      producer.endPuts();
    }
    if (flight != null) {
      flight.shutdown();
      if (producer != null) {
        // Calls that started while the first round ended the others.
        producer.endPuts();
      }
      try {
        if (!flight.awaitTermination(SHUTDOWN_GRACE_SECONDS, TimeUnit.SECONDS)) {
          flight.close();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (s3 != null) {
      s3.close();
    }
    if (admission != null) {
      try {
        admission.close();
      } catch (IllegalStateException e) {
        // Flight's own leak of a malformed message (see MessageBodies); nothing to save.
        LOG.warn("Ingest server closed with Flight buffers outstanding: {}", e.getMessage());
      }
    }
    if (ownsAllocator) {
      try {
        allocator.close();
      } catch (IllegalStateException e) {
        // Buffers of calls cut off by the shutdown; nothing to save at this point.
        LOG.warn("Ingest server closed with Arrow buffers outstanding: {}", e.getMessage());
      }
    }
  }

  /**
   * Configures an ingest server. {@code catalog}, {@code objectStore}, {@code streamId} and
   * {@code token} are required; each setter may be called once; values are checked as they are
   * set and together in {@link #build()}.
   */
  public static final class Builder {
    private String host;
    private int port = -1;
    private Catalog catalog;
    private ObjectStoreEndpoint objectStore;
    private WalLayout walLayout;
    private String streamId;
    private String token;
    private ScopedTokens scopedTokens;
    private long flushBytes = -1;
    private Duration flushInterval;
    private Duration flushLinger;
    private long maxBufferedBytes = -1;
    private Duration backpressureTimeout;
    private int maxBatchRows = -1;
    private long maxBatchBytes = -1;
    private int maxCellBytes = -1;
    private int maxConcurrentPuts = -1;
    private int maxConcurrentPutsPerConnection = -1;
    private int lanes = -1;
    private Duration idempotencyWindow;
    private int idempotencyMaxKeys = -1;
    private int putMaxAttempts = -1;
    private Duration putInitialBackoff;
    private Duration putMaxBackoff;
    private Duration schemaRefreshInterval;
    private BufferAllocator allocator;
    private HybridLogicalClock clock;

    private Builder() {}

    /** The address to bind; default 127.0.0.1 (use 0.0.0.0 to serve other hosts). */
    public Builder host(String host) {
      requireUnset(this.host, "host");
      if (host == null || host.isBlank()) {
        throw new IllegalArgumentException("Invalid host: '" + host + "'");
      }
      this.host = host;
      return this;
    }

    /** The port to bind; 0 (the default) picks a free one, see {@link IngestServer#port()}. */
    public Builder port(int port) {
      requireUnset(this.port == -1 ? null : this.port, "port");
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("Invalid port: " + port);
      }
      this.port = port;
      return this;
    }

    /** The Iceberg catalog holding the tables. */
    public Builder catalog(Catalog catalog) {
      requireUnset(this.catalog, "catalog");
      this.catalog = Objects.requireNonNull(catalog, "catalog");
      return this;
    }

    /** The S3 endpoint and bucket of the WAL. */
    public Builder objectStore(ObjectStoreEndpoint objectStore) {
      requireUnset(this.objectStore, "objectStore");
      this.objectStore = Objects.requireNonNull(objectStore, "objectStore");
      return this;
    }

    /** Where segments live in the bucket; default {@link WalLayout#defaults()}. */
    public Builder walLayout(WalLayout walLayout) {
      requireUnset(this.walLayout, "walLayout");
      this.walLayout = Objects.requireNonNull(walLayout, "walLayout");
      return this;
    }

    /**
     * This server's stream: unique among the ingest processes running at once (letters,
     * digits, '_', '-'). Its lanes are the WAL streams {@code id}, {@code id.1}, {@code id.2}, ...
     */
    public Builder streamId(String streamId) {
      requireUnset(this.streamId, "streamId");
      this.streamId = IngestLayout.checkStreamId(streamId);
      return this;
    }

    /** How many segments are written at once, each lane in order; default 4. */
    public Builder lanes(int lanes) {
      requireUnset(this.lanes == -1 ? null : this.lanes, "lanes");
      if (lanes < 1 || lanes > WalWriterConfig.MAX_LANES) {
        throw new IllegalArgumentException("Invalid lanes: " + lanes + " (1 to "
            + WalWriterConfig.MAX_LANES + ")");
      }
      this.lanes = lanes;
      return this;
    }

    /** How long idempotency keys of durable batches are remembered; default 15 minutes. */
    public Builder idempotencyWindow(Duration window) {
      requireUnset(this.idempotencyWindow, "idempotencyWindow");
      this.idempotencyWindow = positive(window, "idempotency window");
      return this;
    }

    /** At most this many idempotency keys are remembered (oldest dropped); default 1,000,000. */
    public Builder idempotencyMaxKeys(int keys) {
      requireUnset(this.idempotencyMaxKeys == -1 ? null : this.idempotencyMaxKeys,
          "idempotencyMaxKeys");
      if (keys < 0) {
        throw new IllegalArgumentException("Invalid idempotency max keys: " + keys);
      }
      this.idempotencyMaxKeys = keys;
      return this;
    }

    /** Most bytes in one string or binary cell; default 8 MiB. */
    public Builder maxCellBytes(int bytes) {
      requireUnset(this.maxCellBytes == -1 ? null : this.maxCellBytes, "maxCellBytes");
      if (bytes <= 0) {
        throw new IllegalArgumentException("Invalid max cell bytes: " + bytes);
      }
      this.maxCellBytes = bytes;
      return this;
    }

    /** The bearer token every call must present. */
    public Builder token(String token) {
      if (this.token != null) {
        throw new IllegalStateException("token was already set");
      }
      if (token == null || token.isBlank()) {
        throw new IllegalArgumentException("Invalid token: blank");
      }
      this.token = token;
      return this;
    }

    /**
     * Verifies scoped tokens, which calls may present instead of {@link #token}: they write and
     * read only the tables their scope grants and administer none; default none (only the
     * static token is accepted).
     */
    public Builder scopedTokens(ScopedTokens verifier) {
      requireUnset(this.scopedTokens, "scopedTokens");
      this.scopedTokens = Objects.requireNonNull(verifier, "verifier");
      return this;
    }

    /** Segment size that triggers a write; default 8 MiB. */
    public Builder flushBytes(long bytes) {
      requireUnset(this.flushBytes == -1 ? null : this.flushBytes, "flushBytes");
      if (bytes <= 0) {
        throw new IllegalArgumentException("Invalid flush bytes: " + bytes);
      }
      this.flushBytes = bytes;
      return this;
    }

    /** The longest a batch waits for its segment to be written; default 200 ms. */
    public Builder flushInterval(Duration interval) {
      requireUnset(this.flushInterval, "flushInterval");
      this.flushInterval = positive(interval, "flush interval");
      return this;
    }

    /**
     * While no lane is writing, a segment is written once its oldest batch waited this long
     * instead of the whole flush interval; default 5 ms (the flush interval turns it off).
     */
    public Builder flushLinger(Duration linger) {
      requireUnset(this.flushLinger, "flushLinger");
      if (linger == null || linger.isNegative()) {
        throw new IllegalArgumentException("Invalid flush linger: " + linger);
      }
      this.flushLinger = linger;
      return this;
    }

    /** Bound on accepted-but-not-durable batch bytes; default 256 MiB. */
    public Builder maxBufferedBytes(long bytes) {
      requireUnset(this.maxBufferedBytes == -1 ? null : this.maxBufferedBytes, "maxBufferedBytes");
      if (bytes <= 0) {
        throw new IllegalArgumentException("Invalid max buffered bytes: " + bytes);
      }
      this.maxBufferedBytes = bytes;
      return this;
    }

    /** How long a DoPut waits for buffer space before failing with UNAVAILABLE; default 30 s. */
    public Builder backpressureTimeout(Duration timeout) {
      requireUnset(this.backpressureTimeout, "backpressureTimeout");
      if (timeout == null || timeout.isNegative()) {
        throw new IllegalArgumentException("Invalid backpressure timeout: " + timeout);
      }
      this.backpressureTimeout = timeout;
      return this;
    }

    /** Most rows in one batch; default 1,000,000. */
    public Builder maxBatchRows(int rows) {
      requireUnset(this.maxBatchRows == -1 ? null : this.maxBatchRows, "maxBatchRows");
      if (rows <= 0) {
        throw new IllegalArgumentException("Invalid max batch rows: " + rows);
      }
      this.maxBatchRows = rows;
      return this;
    }

    /**
     * Most Arrow buffer bytes in one batch; default 64 MiB. A gRPC message may announce at most
     * 1 MiB more (IPC framing); a longer one is refused from its length prefix, unread.
     */
    public Builder maxBatchBytes(long bytes) {
      requireUnset(this.maxBatchBytes == -1 ? null : this.maxBatchBytes, "maxBatchBytes");
      if (bytes <= 0) {
        throw new IllegalArgumentException("Invalid max batch bytes: " + bytes);
      }
      this.maxBatchBytes = bytes;
      return this;
    }

    /**
     * Most DoPut calls in progress at once; one more is refused with RESOURCE_EXHAUSTED;
     * default 16. Received batches take at most this many times 2 x ({@code maxBatchBytes} +
     * 1 MiB) of direct memory (see {@link PutLimits}): about 2 GiB with the defaults.
     */
    public Builder maxConcurrentPuts(int puts) {
      requireUnset(this.maxConcurrentPuts == -1 ? null : this.maxConcurrentPuts,
          "maxConcurrentPuts");
      if (puts <= 0) {
        throw new IllegalArgumentException("Invalid max concurrent puts: " + puts);
      }
      this.maxConcurrentPuts = puts;
      return this;
    }

    /**
     * Most DoPut calls in progress at once on one client connection (a client's gRPC channel);
     * default 8, or {@link #maxConcurrentPuts} if that is lower.
     */
    public Builder maxConcurrentPutsPerConnection(int puts) {
      requireUnset(this.maxConcurrentPutsPerConnection == -1 ? null
          : this.maxConcurrentPutsPerConnection, "maxConcurrentPutsPerConnection");
      if (puts <= 0) {
        throw new IllegalArgumentException("Invalid max concurrent puts per connection: " + puts);
      }
      this.maxConcurrentPutsPerConnection = puts;
      return this;
    }

    /** Segment PUT attempts before its batches fail with UNAVAILABLE; default 6. */
    public Builder putMaxAttempts(int attempts) {
      requireUnset(this.putMaxAttempts == -1 ? null : this.putMaxAttempts, "putMaxAttempts");
      if (attempts < 1) {
        throw new IllegalArgumentException("Invalid put attempts: " + attempts);
      }
      this.putMaxAttempts = attempts;
      return this;
    }

    /** Pause after the first failed PUT, doubling up to {@link #putMaxBackoff}; default 100 ms. */
    public Builder putInitialBackoff(Duration backoff) {
      requireUnset(this.putInitialBackoff, "putInitialBackoff");
      this.putInitialBackoff = positive(backoff, "put initial backoff");
      return this;
    }

    /** Longest pause between PUT attempts; default 5 s. */
    public Builder putMaxBackoff(Duration backoff) {
      requireUnset(this.putMaxBackoff, "putMaxBackoff");
      this.putMaxBackoff = positive(backoff, "put max backoff");
      return this;
    }

    /** How long a loaded table schema is trusted before it is loaded again; default 10 s. */
    public Builder schemaRefreshInterval(Duration interval) {
      requireUnset(this.schemaRefreshInterval, "schemaRefreshInterval");
      this.schemaRefreshInterval = positive(interval, "schema refresh interval");
      return this;
    }

    /** An allocator for Flight buffers (not closed by the server); default a new root allocator. */
    public Builder allocator(BufferAllocator allocator) {
      requireUnset(this.allocator, "allocator");
      this.allocator = Objects.requireNonNull(allocator, "allocator");
      return this;
    }

    /** The clock stamping batches; default the system clock. */
    public Builder clock(HybridLogicalClock clock) {
      requireUnset(this.clock, "clock");
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    public IngestServer build() {
      require(catalog != null, "catalog is not set");
      require(objectStore != null, "objectStore is not set");
      require(streamId != null, "streamId is not set");
      require(token != null, "token is not set (unauthenticated ingest is not supported)");
      Builder resolved = copyWithDefaults();
      require(resolved.flushBytes <= resolved.maxBufferedBytes, "flushBytes "
          + resolved.flushBytes + " exceeds maxBufferedBytes " + resolved.maxBufferedBytes);
      require(resolved.maxBatchBytes <= resolved.maxBufferedBytes, "maxBatchBytes "
          + resolved.maxBatchBytes + " exceeds maxBufferedBytes " + resolved.maxBufferedBytes);
      require(resolved.maxConcurrentPutsPerConnection <= resolved.maxConcurrentPuts,
          "maxConcurrentPutsPerConnection " + resolved.maxConcurrentPutsPerConnection
              + " exceeds maxConcurrentPuts " + resolved.maxConcurrentPuts);
      require(resolved.flushLinger.compareTo(resolved.flushInterval) <= 0, "flushLinger "
          + resolved.flushLinger + " exceeds flushInterval " + resolved.flushInterval);
      require(resolved.putInitialBackoff.compareTo(resolved.putMaxBackoff) <= 0,
          "putInitialBackoff " + resolved.putInitialBackoff + " exceeds putMaxBackoff "
              + resolved.putMaxBackoff);
      return new IngestServer(resolved);
    }

    WalWriterConfig walConfig() {
      return new WalWriterConfig(flushBytes, flushInterval, maxBufferedBytes, backpressureTimeout,
          new PutRetryPolicy(putMaxAttempts, putInitialBackoff, putMaxBackoff), lanes,
          idempotencyWindow, idempotencyMaxKeys, flushLinger);
    }

    BatchLimits batchLimits() {
      return new BatchLimits(maxBatchRows, maxBatchBytes, maxCellBytes);
    }

    PutLimits putLimits() {
      return new PutLimits(maxConcurrentPuts, maxConcurrentPutsPerConnection);
    }

    private Builder copyWithDefaults() {
      Builder copy = new Builder();
      copy.host = host != null ? host : "127.0.0.1";
      copy.port = port != -1 ? port : 0;
      copy.catalog = catalog;
      copy.objectStore = objectStore;
      copy.walLayout = walLayout != null ? walLayout : WalLayout.defaults();
      copy.streamId = streamId;
      copy.token = token;
      copy.scopedTokens = scopedTokens;
      copy.flushBytes = flushBytes != -1 ? flushBytes : WalWriterConfig.FLUSH_BYTES_DEFAULT;
      copy.flushInterval = flushInterval != null ? flushInterval
          : WalWriterConfig.FLUSH_INTERVAL_DEFAULT;
      copy.flushLinger = flushLinger != null ? flushLinger
          : WalWriterConfig.FLUSH_LINGER_DEFAULT.compareTo(copy.flushInterval) < 0
              ? WalWriterConfig.FLUSH_LINGER_DEFAULT : copy.flushInterval;
      copy.maxBufferedBytes = maxBufferedBytes != -1 ? maxBufferedBytes
          : WalWriterConfig.MAX_BUFFERED_BYTES_DEFAULT;
      copy.backpressureTimeout = backpressureTimeout != null ? backpressureTimeout
          : WalWriterConfig.BACKPRESSURE_TIMEOUT_DEFAULT;
      copy.maxBatchRows = maxBatchRows != -1 ? maxBatchRows : BatchLimits.MAX_ROWS_DEFAULT;
      copy.maxBatchBytes = maxBatchBytes != -1 ? maxBatchBytes : BatchLimits.MAX_BYTES_DEFAULT;
      copy.maxCellBytes = maxCellBytes != -1 ? maxCellBytes : BatchLimits.MAX_CELL_BYTES_DEFAULT;
      copy.maxConcurrentPuts = maxConcurrentPuts != -1 ? maxConcurrentPuts
          : PutLimits.MAX_CONCURRENT_PUTS_DEFAULT;
      copy.maxConcurrentPutsPerConnection = maxConcurrentPutsPerConnection != -1
          ? maxConcurrentPutsPerConnection
          : Math.min(PutLimits.MAX_CONCURRENT_PUTS_PER_CONNECTION_DEFAULT, copy.maxConcurrentPuts);
      copy.lanes = lanes != -1 ? lanes : WalWriterConfig.LANES_DEFAULT;
      copy.idempotencyWindow = idempotencyWindow != null ? idempotencyWindow
          : WalWriterConfig.IDEMPOTENCY_WINDOW_DEFAULT;
      copy.idempotencyMaxKeys = idempotencyMaxKeys != -1 ? idempotencyMaxKeys
          : WalWriterConfig.IDEMPOTENCY_MAX_KEYS_DEFAULT;
      copy.putMaxAttempts = putMaxAttempts != -1 ? putMaxAttempts
          : PutRetryPolicy.MAX_ATTEMPTS_DEFAULT;
      copy.putInitialBackoff = putInitialBackoff != null ? putInitialBackoff
          : PutRetryPolicy.INITIAL_BACKOFF_DEFAULT;
      copy.putMaxBackoff = putMaxBackoff != null ? putMaxBackoff
          : PutRetryPolicy.MAX_BACKOFF_DEFAULT;
      copy.schemaRefreshInterval = schemaRefreshInterval != null ? schemaRefreshInterval
          : TableCache.REFRESH_AFTER_DEFAULT;
      copy.allocator = allocator;
      copy.clock = clock != null ? clock : HybridLogicalClock.system();
      return copy;
    }

    private static Duration positive(Duration value, String name) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("Invalid " + name + ": " + value);
      }
      return value;
    }

    private static void requireUnset(Object current, String name) {
      if (current != null) {
        throw new IllegalStateException(name + " was already set to " + current);
      }
    }

    private static void require(boolean condition, String reason) {
      if (!condition) {
        throw new IllegalStateException("Cannot build ingest server: " + reason);
      }
    }
  }
}
