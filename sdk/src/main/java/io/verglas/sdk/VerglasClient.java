package io.verglas.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.verglas.protocol.AlterTableRequest;
import io.verglas.protocol.AlterTableRequestParser;
import io.verglas.protocol.DropTableRequest;
import io.verglas.protocol.IngestProtocol;
import io.verglas.protocol.ListCriteria;
import io.verglas.protocol.PutAck;
import io.verglas.table.CreateTableRequest;
import io.verglas.table.CreateTableRequestParser;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.CallOptions;
import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.auth2.BearerCredentialWriter;
import org.apache.arrow.flight.grpc.CredentialCallOption;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A client of a Verglas ingest server (Arrow Flight): table administration and writers.
 *
 * <p>Every call carries {@code authorization: Bearer <token>} when a token is set. Failures
 * surface as {@link VerglasException} with the Flight status code and the server's message.
 * One client is thread-safe and may serve many concurrent writers; close it when done (it owns
 * its allocator unless one was given).
 */
public final class VerglasClient implements AutoCloseable {
  static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(60);
  static final int DEFAULT_MAX_IN_FLIGHT_BATCHES = 64;
  static final int DEFAULT_WRITE_RETRIES = 5;
  static final Duration DEFAULT_RETRY_BACKOFF = Duration.ofMillis(200);
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final URI uri;
  private final BufferAllocator allocator;
  private final boolean ownsAllocator;
  private final FlightClient flight;
  private final CallOption[] writeOptions;
  private final CallOption[] callOptions;
  private final int maxInFlightBatches;
  private final int writeRetries;
  private final Duration retryBackoff;
  private final boolean autoIdempotencyKeys;
  private final BatchCompression compression;
  private final java.util.concurrent.ExecutorService retries =
      java.util.concurrent.Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "verglas-writer-retry");
        thread.setDaemon(true);
        return thread;
      });
  private final Set<TableWriter> openWriters = ConcurrentHashMap.newKeySet();
  private final TableEndpoints tableEndpoints;

  private VerglasClient(Builder builder) {
    this.uri = builder.uri;
    this.ownsAllocator = builder.allocator == null;
    this.allocator = ownsAllocator ? new RootAllocator() : builder.allocator;
    this.flight = FlightClient.builder(allocator, new Location(uri)).build();
    List<CallOption> options = new ArrayList<>();
    if (builder.token != null) {
      options.add(new CredentialCallOption(new BearerCredentialWriter(builder.token)));
    }
    // Writers are long-lived streams: only short calls get a deadline.
    this.writeOptions = options.toArray(CallOption[]::new);
    Duration timeout = builder.callTimeout == null ? DEFAULT_CALL_TIMEOUT : builder.callTimeout;
    options.add(CallOptions.timeout(timeout.toMillis(),
        java.util.concurrent.TimeUnit.MILLISECONDS));
    this.callOptions = options.toArray(CallOption[]::new);
    this.maxInFlightBatches = builder.maxInFlightBatches == 0
        ? DEFAULT_MAX_IN_FLIGHT_BATCHES : builder.maxInFlightBatches;
    this.writeRetries = builder.writeRetries < 0 ? DEFAULT_WRITE_RETRIES : builder.writeRetries;
    this.retryBackoff = builder.retryBackoff == null ? DEFAULT_RETRY_BACKOFF : builder.retryBackoff;
    this.autoIdempotencyKeys = builder.autoIdempotencyKeys;
    this.tableEndpoints = builder.tables.build();
    this.compression = builder.compression == null ? BatchCompression.defaults()
        : builder.compression;
  }

  public static Builder builder() {
    return new Builder();
  }

  public URI uri() {
    return uri;
  }

  public BufferAllocator allocator() {
    return allocator;
  }

  /** Creates a table (and its namespace if missing); fails with ALREADY_EXISTS if it exists. */
  public TableInfo createTable(CreateTableRequest request) {
    byte[] body = CreateTableRequestParser.toJson(request).getBytes(StandardCharsets.UTF_8);
    return TableInfo.fromJson(singleResult(IngestProtocol.ACTION_CREATE_TABLE, body));
  }

  /** Adds nullable columns to a table; returns the table with its new schema. */
  public TableInfo alterTable(AlterTableRequest request) {
    byte[] body = AlterTableRequestParser.toJson(request).getBytes(StandardCharsets.UTF_8);
    return TableInfo.fromJson(singleResult(IngestProtocol.ACTION_ALTER_TABLE, body));
  }

  /** Adds one nullable column of an Iceberg primitive type to a table. */
  public TableInfo addColumn(TableIdentifier table, String name, org.apache.iceberg.types.Type type) {
    return alterTable(new AlterTableRequest(List.of(table.namespace().levels()), table.name(),
        List.of(new AlterTableRequest.NewColumn(name, type, null))));
  }

  /**
   * Drops a table ({@code purge} also deletes its files); fails with NOT_FOUND if it does not
   * exist.
   */
  public void dropTable(TableIdentifier table, boolean purge) {
    dropTable(DropTableRequest.of(table, purge));
  }

  /**
   * Drops a table and its files, then its namespace and the parents of that while the drop
   * leaves them empty (scratch tables, say, that should leave nothing behind).
   */
  public void dropTableAndEmptyNamespace(TableIdentifier table) {
    dropTable(DropTableRequest.of(table, true).withEmptyNamespaceDropped());
  }

  private void dropTable(DropTableRequest request) {
    singleResult(IngestProtocol.ACTION_DROP_TABLE, request.toJson().getBytes(StandardCharsets.UTF_8));
  }

  /** The server's metrics in the Prometheus text format. */
  public String metrics() {
    return singleResult(IngestProtocol.ACTION_METRICS, new byte[0]);
  }

  /**
   * The Arrow schema a writer of the table should send: the table's columns in their canonical
   * Arrow types plus the optional {@code _op} column. Its metadata names the primary key
   * ({@link IngestProtocol#SCHEMA_PRIMARY_KEY}) and the Iceberg schema id.
   */
  public Schema tableSchema(TableIdentifier table) {
    try {
      return flight.getSchema(descriptor(table), callOptions).getSchema();
    } catch (FlightRuntimeException e) {
      throw VerglasException.from(e);
    }
  }

  /** Every table of every namespace, as the server's ListFlights reports them. */
  public List<TableIdentifier> listTables() {
    return listTables(Namespace.empty());
  }

  /**
   * The tables of one namespace and of the namespaces nested in it, asked for a page of
   * {@link ListCriteria#DEFAULT_LIMIT} at a time (the server answers no more than that).
   */
  public List<TableIdentifier> listTables(Namespace namespace) {
    List<TableIdentifier> tables = new ArrayList<>();
    TableIdentifier after = null;
    while (true) {
      List<TableIdentifier> page = listTables(namespace, after, ListCriteria.DEFAULT_LIMIT);
      tables.addAll(page);
      if (page.size() < ListCriteria.DEFAULT_LIMIT) {
        return tables;
      }
      after = page.get(page.size() - 1);
    }
  }

  /**
   * One page: at most {@code limit} tables under {@code namespace} that come after
   * {@code after} (null: from the first) in the server's listing order; a shorter page is the
   * last, and the next one starts after this one's last table.
   */
  public List<TableIdentifier> listTables(Namespace namespace, TableIdentifier after, int limit) {
    byte[] criteria = new ListCriteria(namespace, after, limit).toBytes();
    try {
      List<TableIdentifier> tables = new ArrayList<>();
      for (FlightInfo info : flight.listFlights(new Criteria(criteria), callOptions)) {
        tables.add(identifier(info.getDescriptor().getPath()));
      }
      return tables;
    } catch (FlightRuntimeException e) {
      throw VerglasException.from(e);
    }
  }

  public Health health() {
    String json = singleResult(IngestProtocol.ACTION_HEALTH, new byte[0]);
    try {
      JsonNode node = MAPPER.readTree(json);
      return new Health(node.path("status").asText(), node.path("stream").asText(), json);
    } catch (IOException e) {
      throw new VerglasException(org.apache.arrow.flight.FlightStatusCode.INTERNAL,
          "Cannot parse health answer: " + json, e);
    }
  }

  /** Opens a DoPut stream to one table; see {@link TableWriter}. */
  public TableWriter openWriter(TableIdentifier table) {
    return openWriter(table, ack -> { });
  }

  /** Opens a writer that also hands every acknowledgement, in batch order, to {@code onAck}. */
  public TableWriter openWriter(TableIdentifier table, Consumer<PutAck> onAck) {
    TableWriter writer = new TableWriter(flight, allocator, table, descriptor(table), writeOptions,
        maxInFlightBatches, onAck, openWriters::remove, writeRetries, retryBackoff,
        autoIdempotencyKeys, retries, compression);
    openWriters.add(writer);
    return writer;
  }

  /** Writes all batches through one stream and returns their acknowledgements in order. */
  public List<PutAck> push(TableIdentifier table, Iterable<VectorSchemaRoot> batches) {
    try (TableWriter writer = openWriter(table)) {
      for (VectorSchemaRoot batch : batches) {
        writer.write(batch);
      }
      writer.flush();
      return writer.acks();
    }
  }

  /**
   * The verbs of one table ({@code ns.t}, a level holding a dot in backquotes): commit, snapshot,
   * rows, delta, follow. Reads need {@link Builder#queryEndpoint}, following
   * {@link Builder#changeFeed}.
   */
  public TableClient table(String table) {
    return table(io.verglas.table.TableIdentifiers.identifier(table));
  }

  public TableClient table(TableIdentifier table) {
    return tableEndpoints.client(this, Objects.requireNonNull(table, "table"));
  }

  /** Rows from maps and records for the table's current schema, checked as they are added. */
  public TableRows tableRows(TableIdentifier table) {
    return TableRows.forSchema(tableSchema(table), allocator);
  }

  /** A row builder for the table's current schema, allocating from this client's allocator. */
  public RowBatchBuilder rowBatchBuilder(TableIdentifier table) {
    return RowBatchBuilder.forSchema(tableSchema(table), allocator);
  }

  /**
   * Closes the connection. Writers still open are cancelled first: their unacknowledged
   * batches may or may not have become durable.
   */
  @Override
  public void close() {
    for (TableWriter writer : openWriters) {
      writer.cancel();
    }
    retries.shutdownNow();
    try {
      flight.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (ownsAllocator) {
        allocator.close();
      }
    }
  }

  static FlightDescriptor descriptor(TableIdentifier table) {
    List<String> path = new ArrayList<>(List.of(table.namespace().levels()));
    path.add(table.name());
    return FlightDescriptor.path(path);
  }

  static TableIdentifier identifier(List<String> path) {
    List<String> namespace = path.subList(0, path.size() - 1);
    return TableIdentifier.of(Namespace.of(namespace.toArray(String[]::new)),
        path.get(path.size() - 1));
  }

  private String singleResult(String action, byte[] body) {
    try {
      Iterator<Result> results = flight.doAction(new Action(action, body), callOptions);
      String answer = null;
      while (results.hasNext()) {
        byte[] bytes = results.next().getBody();
        if (answer == null) {
          answer = new String(bytes, StandardCharsets.UTF_8);
        }
      }
      if (answer == null) {
        throw new VerglasException(org.apache.arrow.flight.FlightStatusCode.INTERNAL,
            "Action " + action + " returned no result");
      }
      return answer;
    } catch (FlightRuntimeException e) {
      throw VerglasException.from(e);
    }
  }

  /** Builds a client; {@link #uri} is required, everything else has a default. */
  public static final class Builder {
    private URI uri;
    private String token;
    private BufferAllocator allocator;
    private Duration callTimeout;
    private int maxInFlightBatches;
    private int writeRetries = -1;
    private Duration retryBackoff;
    private boolean autoIdempotencyKeys;
    private final TableEndpoints.Builder tables = new TableEndpoints.Builder();
    private BatchCompression compression;

    private Builder() {}

    /**
     * The cache node serving {@code POST /v1/query} (its S3 endpoint) and its token: what
     * {@link TableClient}'s reads and commit confirmations go through.
     */
    public Builder queryEndpoint(URI endpoint, String token) {
      tables.queryEndpoint(endpoint, token);
      return this;
    }

    /** The change feed ({@code http://host:adminPort/events}) and its read token (or null). */
    public Builder changeFeed(URI events, String token) {
      tables.changeFeed(events, token);
      return this;
    }

    /** How long {@link TableClient#commit} waits for the materializer. Default 2 minutes. */
    public Builder commitTimeout(Duration timeout) {
      tables.commitTimeout(timeout);
      return this;
    }

    /** The server's Flight location, e.g. {@code grpc+tcp://127.0.0.1:8815}. */
    public Builder uri(String uri) {
      try {
        return uri(new URI(Objects.requireNonNull(uri, "uri")));
      } catch (URISyntaxException e) {
        throw new IllegalArgumentException("Invalid uri: '" + uri + "'", e);
      }
    }

    public Builder uri(URI uri) {
      requireUnset(this.uri, "uri");
      Objects.requireNonNull(uri, "uri");
      if (!"grpc+tcp".equals(uri.getScheme()) && !"grpc".equals(uri.getScheme())
          && !"grpc+tls".equals(uri.getScheme())) {
        throw new IllegalArgumentException("Invalid uri: '" + uri
            + "' (expected grpc+tcp://host:port or grpc+tls://host:port)");
      }
      this.uri = uri;
      return this;
    }

    /** The bearer token sent with every call. */
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

    /** An allocator to use (and not close); by default the client owns a new root allocator. */
    public Builder allocator(BufferAllocator allocator) {
      requireUnset(this.allocator, "allocator");
      this.allocator = Objects.requireNonNull(allocator, "allocator");
      return this;
    }

    /** Deadline of the short calls (actions, schemas, listings); not of writers. */
    public Builder callTimeout(Duration timeout) {
      requireUnset(this.callTimeout, "callTimeout");
      if (timeout == null || timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("Invalid call timeout: " + timeout);
      }
      this.callTimeout = timeout;
      return this;
    }

    /**
     * How many batches one writer may have sent but not yet seen acknowledged; {@code write}
     * blocks beyond that (client-side backpressure). Default 64.
     */
    public Builder maxInFlightBatches(int batches) {
      if (this.maxInFlightBatches != 0) {
        throw new IllegalStateException("maxInFlightBatches was already set to "
            + this.maxInFlightBatches);
      }
      if (batches <= 0) {
        throw new IllegalArgumentException("Invalid max in-flight batches: " + batches);
      }
      this.maxInFlightBatches = batches;
      return this;
    }

    /**
     * How many times in a row a writer re-opens its stream after a transient failure
     * (UNAVAILABLE, or RESOURCE_EXHAUSTED for too many puts in progress on the server) and
     * resends its unacknowledged keyed batches; 0 disables it. Default 5.
     */
    public Builder writeRetries(int retries) {
      if (this.writeRetries != -1) {
        throw new IllegalStateException("writeRetries was already set to " + this.writeRetries);
      }
      if (retries < 0) {
        throw new IllegalArgumentException("Invalid write retries: " + retries);
      }
      this.writeRetries = retries;
      return this;
    }

    /** The pause before the first re-open, doubling up to 5 s. Default 200 ms. */
    public Builder retryBackoff(Duration backoff) {
      requireUnset(this.retryBackoff, "retryBackoff");
      if (backoff == null || backoff.isNegative()) {
        throw new IllegalArgumentException("Invalid retry backoff: " + backoff);
      }
      this.retryBackoff = backoff;
      return this;
    }

    /**
     * Gives every batch written without a key one of its own (unique per writer and batch), so
     * that every batch can be resent safely. Keys cost the server a small journal write per
     * segment. Default off.
     */
    public Builder autoIdempotencyKeys(boolean enabled) {
      this.autoIdempotencyKeys = enabled;
      return this;
    }

    /**
     * How writers compress the batches they send (see {@link BatchCompression}). Default
     * {@link BatchCompression#defaults()}: zstd for batches of 64 KiB of buffers or more.
     */
    public Builder batchCompression(BatchCompression compression) {
      requireUnset(this.compression, "batchCompression");
      this.compression = Objects.requireNonNull(compression, "compression");
      return this;
    }

    public VerglasClient build() {
      if (uri == null) {
        throw new IllegalStateException("Cannot build client: uri is not set");
      }
      return new VerglasClient(this);
    }

    private static void requireUnset(Object current, String name) {
      if (current != null) {
        throw new IllegalStateException(name + " was already set to " + current);
      }
    }
  }
}
