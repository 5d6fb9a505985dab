package io.verglas.ingest.flight;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.verglas.access.Access;
import io.verglas.access.BearerTokens;
import io.verglas.ingest.metrics.IngestMetrics;
import io.verglas.ingest.metrics.PrometheusText;
import io.verglas.ingest.table.TableCache;
import io.verglas.ingest.validation.BatchValidator;
import io.verglas.ingest.wal.GroupCommitter;
import io.verglas.protocol.IngestProtocol;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.flight.Action;
import org.apache.arrow.flight.ActionType;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightProducer;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.PutResult;
import org.apache.arrow.flight.Result;
import org.apache.arrow.flight.SchemaResult;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The Flight face of an ingest server; each call is delegated to the class that owns it and
 * every failure becomes a status through {@link Statuses} (and, when it is the client's fault,
 * a reject counted by reason).
 *
 * <ul>
 *   <li>DoPut ([namespace..., table]) → {@link PutHandler}
 *   <li>GetFlightInfo / GetSchema → {@link TableSchemas}, always from freshly loaded metadata
 *       (a writer asks once and should see the current schema); ListFlights →
 *       {@link TableListing}
 *   <li>DoAction {@code create-table} → {@link CreateTableAction}, {@code alter-table} →
 *       {@link AlterTableAction}, {@code drop-table} → {@link DropTableAction}; {@code health}
 *       (JSON) and {@code metrics} (Prometheus text)
 *   <li>DoGet → UNIMPLEMENTED: tables are read through Iceberg or the cache node
 * </ul>
 *
 * <p>A call with a scoped token ({@link BearerAuthenticator#access}) puts only to tables its
 * scope grants for writes (checked before the stream's first batch is read, so nothing of a
 * refused put reaches the WAL), sees the schemas and listing entries only of tables it may
 * read, and may not create, alter or drop tables; a refusal is PERMISSION_DENIED.
 */
public final class IngestFlightProducer implements FlightProducer {
  private static final List<ActionType> ACTIONS = List.of(
      new ActionType(IngestProtocol.ACTION_CREATE_TABLE, "Create a table: body = JSON "
          + "{namespace, name, schema (Iceberg JSON), primaryKey, partitionSpec, properties}"),
      new ActionType(IngestProtocol.ACTION_ALTER_TABLE, "Add nullable columns: body = JSON "
          + "{namespace, name, addColumns: [{name, type, doc}]}"),
      new ActionType(IngestProtocol.ACTION_DROP_TABLE, "Drop a table: body = JSON "
          + "{namespace, name, purge}"),
      new ActionType(IngestProtocol.ACTION_HEALTH, "Report whether this server accepts writes"),
      new ActionType(IngestProtocol.ACTION_METRICS, "This server's metrics (Prometheus text)"));
  private static final Set<String> ADMIN_ACTIONS = Set.of(IngestProtocol.ACTION_CREATE_TABLE,
      IngestProtocol.ACTION_ALTER_TABLE, IngestProtocol.ACTION_DROP_TABLE);
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final BufferAllocator allocator;
  private final TableCache tables;
  private final BatchValidator validator;
  private final GroupCommitter committer;
  private final IngestMetrics metrics;
  private final CreateTableAction createTable;
  private final AlterTableAction alterTable;
  private final DropTableAction dropTable;
  private final TableListing listing;
  private final BearerTokens tokens;
  private final Set<AckSender> activePuts = ConcurrentHashMap.newKeySet();

  public IngestFlightProducer(BufferAllocator allocator, Catalog catalog, TableCache tables,
      BatchValidator validator, GroupCommitter committer, IngestMetrics metrics,
      BearerTokens tokens) {
    this.allocator = allocator;
    this.tables = tables;
    this.validator = validator;
    this.committer = committer;
    this.metrics = metrics;
    this.createTable = new CreateTableAction(catalog, tables);
    this.alterTable = new AlterTableAction(catalog, tables);
    this.dropTable = new DropTableAction(catalog, tables);
    this.listing = new TableListing(catalog, tables);
    this.tokens = tokens;
  }

  @Override
  public Runnable acceptPut(CallContext context, FlightStream stream,
      StreamListener<PutResult> ackStream) {
    AckSender acks = new AckSender(ackStream, allocator);
    PutHandler handler = new PutHandler(stream, PutFlow.current(), acks, tables, validator,
        committer, metrics, access(context));
    return () -> {
      activePuts.add(acks);
      try {
        handler.run();
      } finally {
        activePuts.remove(acks);
      }
    };
  }

  /**
   * Ends every open DoPut call with UNAVAILABLE once the acks of its accepted batches are sent.
   * Called after the WAL writer closed (so every accepted batch has its outcome); without it,
   * calls whose clients keep the stream open would hold the shutdown up.
   */
  public void endPuts() {
    for (AckSender acks : activePuts) {
      acks.finish(CallStatus.UNAVAILABLE.withDescription("Ingest server is shutting down; "
          + "every batch acknowledged so far is durable").toRuntimeException());
    }
  }

  @Override
  public FlightInfo getFlightInfo(CallContext context, FlightDescriptor descriptor) {
    try {
      TableIdentifier id = readable(context, descriptor);
      return new FlightInfo(TableSchemas.arrowSchema(tables.reload(id)), descriptor, List.of(),
          -1, -1);
    } catch (RuntimeException e) {
      throw fail(e);
    }
  }

  @Override
  public SchemaResult getSchema(CallContext context, FlightDescriptor descriptor) {
    try {
      TableIdentifier id = readable(context, descriptor);
      return new SchemaResult(TableSchemas.arrowSchema(tables.reload(id)));
    } catch (RuntimeException e) {
      throw fail(e);
    }
  }

  @Override
  public void listFlights(CallContext context, Criteria criteria,
      StreamListener<FlightInfo> listener) {
    try {
      listing.list(criteria.getExpression(), readable(access(context), listener));
    } catch (RuntimeException e) {
      listener.onError(fail(e));
    }
  }

  @Override
  public void getStream(CallContext context, Ticket ticket, ServerStreamListener listener) {
    listener.error(fail(CallStatus.UNIMPLEMENTED.withDescription("DoGet is not supported: read "
        + "tables through their Iceberg catalog or the Verglas cache node").toRuntimeException()));
  }

  @Override
  public void doAction(CallContext context, Action action, StreamListener<Result> listener) {
    try {
      byte[] result;
      if (ADMIN_ACTIONS.contains(action.getType())) {
        access(context).checkAdmin(action.getType());
      }
      switch (action.getType()) {
        case IngestProtocol.ACTION_CREATE_TABLE:
          result = createTable.run(action.getBody());
          break;
        case IngestProtocol.ACTION_ALTER_TABLE:
          result = alterTable.run(action.getBody());
          break;
        case IngestProtocol.ACTION_DROP_TABLE:
          result = dropTable.run(action.getBody());
          break;
        case IngestProtocol.ACTION_HEALTH:
          result = health();
          break;
        case IngestProtocol.ACTION_METRICS:
          result = PrometheusText.render(metrics.snapshot()).getBytes(StandardCharsets.UTF_8);
          break;
        default:
          throw CallStatus.UNIMPLEMENTED.withDescription("Unknown action '" + action.getType()
              + "' (supported: " + String.join(", ", ACTIONS.stream().map(ActionType::getType)
                  .toList()) + ")").toRuntimeException();
      }
      listener.onNext(new Result(result));
      listener.onCompleted();
    } catch (RuntimeException e) {
      listener.onError(fail(e));
    }
  }

  @Override
  public void listActions(CallContext context, StreamListener<ActionType> listener) {
    ACTIONS.forEach(listener::onNext);
    listener.onCompleted();
  }

  private Access access(CallContext context) {
    return BearerAuthenticator.access(tokens, context);
  }

  private TableIdentifier readable(CallContext context, FlightDescriptor descriptor) {
    TableIdentifier id = TableDescriptors.identifier(descriptor);
    access(context).checkRead(id);
    return id;
  }

  /** {@code listener} passing on only the tables {@code access} may read. */
  private static StreamListener<FlightInfo> readable(Access access,
      StreamListener<FlightInfo> listener) {
    if (access.scope().isEmpty()) {
      return listener;
    }
    return new StreamListener<>() {
      @Override
      public void onNext(FlightInfo info) {
        if (access.mayRead(TableDescriptors.identifier(info.getDescriptor()))) {
          listener.onNext(info);
        }
      }

      @Override
      public void onError(Throwable t) {
        listener.onError(t);
      }

      @Override
      public void onCompleted() {
        listener.onCompleted();
      }
    };
  }

  private FlightRuntimeException fail(RuntimeException e) {
    metrics.rejected(Rejections.reason(e));
    return Statuses.toFlight(e);
  }

  private byte[] health() {
    GroupCommitter.Status status = committer.status();
    ObjectNode node = MAPPER.createObjectNode();
    node.put("status", status.state().equals("running") ? "ok" : status.state());
    node.put("stream", committer.streamId());
    node.put("epoch", status.epoch());
    node.put("nextSequence", status.lanes().isEmpty() ? -1 : status.lanes().get(0).nextSequence());
    ArrayNode lanes = node.putArray("lanes");
    for (GroupCommitter.LaneStatus lane : status.lanes()) {
      lanes.addObject().put("stream", lane.stream()).put("nextSequence", lane.nextSequence());
    }
    node.put("bufferedBytes", status.bufferedBytes());
    IngestMetrics.Snapshot snapshot = metrics.snapshot();
    node.put("acknowledgedBatches", snapshot.batchesAcknowledged());
    node.put("rejects", snapshot.rejectsTotal());
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }
}
