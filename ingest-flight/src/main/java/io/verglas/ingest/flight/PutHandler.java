package io.verglas.ingest.flight;

import io.verglas.access.Access;
import io.verglas.ingest.metrics.IngestMetrics;
import io.verglas.ingest.table.IngestTable;
import io.verglas.ingest.table.TableCache;
import io.verglas.ingest.validation.BatchValidator;
import io.verglas.ingest.validation.ColumnPlan;
import io.verglas.ingest.validation.InvalidBatchException;
import io.verglas.ingest.validation.RejectReason;
import io.verglas.ingest.wal.BatchEncoder;
import io.verglas.ingest.wal.GroupCommitter;
import io.verglas.ingest.wal.SegmentTarget;
import io.verglas.protocol.BatchMetadata;
import io.verglas.protocol.BatchMetadataParser;
import io.verglas.protocol.IngestProtocol;
import io.verglas.protocol.PutAck;
import io.verglas.table.VerglasTableProperties;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * One DoPut call: reads batches, validates each against the table, encodes it and hands it to
 * the stream's group commit; {@link AckSender} acknowledges them as they become durable.
 *
 * <p>The stream's columns are matched with the table once (reloading the table before
 * rejecting, in case the schema just evolved), and again whenever the table's current schema
 * changes while the stream is open, so every batch is checked against the schema in force. A
 * bad batch ends the call with INVALID_ARGUMENT after the acks of the batches before it;
 * nothing of the bad batch is written. A batch whose idempotency key the stream has seen is
 * answered with the earlier acknowledgement without being encoded. Encoding (zstd) happens on
 * this thread, so the WAL lanes only concatenate bytes; a batch its client compressed is
 * decompressed for validation and written with the client's buffers ({@link ReceivedBatchLoader}). Reads go through the call's
 * {@link PutFlow}, so the call receives a batch only once it has handed on the one before.
 */
final class PutHandler implements Runnable {
  private final FlightStream stream;
  private final PutFlow flow;
  private final AckSender acks;
  private final TableCache tables;
  private final BatchValidator validator;
  private final GroupCommitter committer;
  private final IngestMetrics metrics;
  private final Access access;

  PutHandler(FlightStream stream, PutFlow flow, AckSender acks, TableCache tables,
      BatchValidator validator, GroupCommitter committer, IngestMetrics metrics, Access access) {
    this.stream = stream;
    this.flow = flow;
    this.acks = acks;
    this.tables = tables;
    this.validator = validator;
    this.committer = committer;
    this.metrics = metrics;
    this.access = access;
  }

  @Override
  public void run() {
    FlightRuntimeException error = null;
    try {
      readAll();
    } catch (RuntimeException e) {
      metrics.rejected(Rejections.reason(e));
      error = Statuses.toFlight(e);
    }
    acks.finish(error);
  }

  private void readAll() {
    TableIdentifier id = TableDescriptors.identifier(flow.read(stream::getDescriptor));
    access.checkWrite(id); // before any batch is read: nothing of a refused put is written
    Schema schema = streamSchema(id);
    // A stream is checked against freshly loaded metadata (it may run for long; a stale cached
    // schema could let a dropped or renamed column through); later batches use the cache.
    ColumnPlan plan = plan(id, schema, tables.reload(id), true);
    ReceivedBatchLoader loader = ReceivedBatchLoader.install(stream, validator.limits().maxBytes());
    try {
      readBatches(id, schema, plan, loader);
    } finally {
      loader.discard();
    }
  }

  private void readBatches(TableIdentifier id, Schema schema, ColumnPlan plan,
      ReceivedBatchLoader loader) {
    int index = 0;
    while (!acks.ended() && next(id, index)) {
      VectorSchemaRoot batch = stream.getRoot();
      BatchMetadata metadata = metadata(id, index);
      IngestTable current = tables.get(id);
      if (!current.uuid().equals(plan.table().uuid()) || current.schemaId() != plan.schemaId()) {
        plan = plan(id, schema, current, false);
      }
      ArrowRecordBatch compressed = loader.takeCompressed();
      try {
        handOn(batch, compressed, plan, metadata, index);
      } finally {
        if (compressed != null) {
          compressed.close();
        }
      }
      // Handed on (encoded, or answered by an earlier ack): the call holds nothing while it
      // waits for the next batch (see PutFlow).
      batch.clear();
      index++;
    }
  }

  /**
   * Validates a loaded batch and hands it to the group commit (or answers it with an earlier
   * ack); a batch that came compressed is written with its client's compressed buffers.
   */
  private void handOn(VectorSchemaRoot batch, ArrowRecordBatch compressed, ColumnPlan plan,
      BatchMetadata metadata, int index) {
    validator.validate(batch, plan, index);
    SegmentTarget target = plan.table().segmentTarget();
    String key = metadata.idempotencyKey();
    Optional<CompletableFuture<PutAck>> duplicate = committer.duplicateOf(target, key);
    if (duplicate.isPresent()) {
      metrics.duplicateAbsorbed();
      acks.track(duplicate.get());
    } else {
      byte[] ipc = compressed != null ? BatchEncoder.passThrough(batch, compressed)
          : BatchEncoder.encode(batch);
      metrics.batchAccepted(batch.getRowCount(), bufferBytes(batch));
      acks.track(committer.append(target, ipc, batch.getRowCount(), key));
    }
  }

  private Schema streamSchema(TableIdentifier id) {
    try {
      Schema schema = flow.read(stream::getSchema);
      flow.taken();
      return schema;
    } catch (FlightRuntimeException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new InvalidBatchException("Cannot read the schema of the stream to " + id
          + ": malformed Arrow data: " + e.getMessage(), RejectReason.MALFORMED, e);
    }
  }

  private ColumnPlan plan(TableIdentifier id, Schema schema, IngestTable table, boolean first) {
    ColumnPlan plan = validator.plan(schema, table);
    if (!plan.ok() || !table.managed()) {
      // The cached schema may predate a change that makes this stream fit.
      table = tables.reload(id);
      plan = validator.plan(schema, table);
    }
    if (!table.managed()) {
      throw new InvalidBatchException("Cannot write to " + id + ": the table is not managed by "
          + "Verglas (table property " + VerglasTableProperties.MANAGED + " is not 'true'); "
          + "create it with the create-table action", RejectReason.UNMANAGED_TABLE);
    }
    if (!plan.ok()) {
      throw new InvalidBatchException("Cannot write to " + id + ": the stream's columns do not "
          + "fit the table" + drift(schema, table, first) + ": " + plan.problems().describe(),
          plan.problems().firstReason());
    }
    return plan;
  }

  /** Explains a mismatch caused by a schema change the writer has not seen. */
  private static String drift(Schema schema, IngestTable table, boolean first) {
    if (!first) {
      return " any more (its schema changed to id " + table.schemaId() + " while the stream "
          + "was open; fetch it again with GetSchema)";
    }
    String writerSchemaId = schema.getCustomMetadata().get(IngestProtocol.SCHEMA_ID);
    if (writerSchemaId != null && !writerSchemaId.equals(Integer.toString(table.schemaId()))) {
      return " (the writer's schema is schema id " + writerSchemaId + " but the table is at "
          + "schema id " + table.schemaId() + " now; fetch it again with GetSchema)";
    }
    return "";
  }

  private boolean next(TableIdentifier id, int index) {
    try {
      boolean more = flow.read(stream::next);
      if (more) {
        flow.taken();
      }
      return more;
    } catch (FlightRuntimeException e) {
      throw e;
    } catch (RuntimeException e) {
      // A batch that failed to load may have left some vectors filled: release them now, the
      // stream ends here.
      try {
        stream.getRoot().clear();
      } catch (RuntimeException ignored) {
        // nothing more to release
      }
      if (e instanceof InvalidBatchException refused) {
        // Refused by the loader before decompressing (over the byte limit).
        throw new InvalidBatchException("Cannot write batch " + index + " to " + id + ": "
            + e.getMessage(), refused.reason(), e);
      }
      throw new InvalidBatchException("Cannot read batch " + index + " of the stream to " + id
          + ": malformed Arrow data: " + e.getMessage(), RejectReason.MALFORMED, e);
    }
  }

  private BatchMetadata metadata(TableIdentifier id, int index) {
    ArrowBuf buf = stream.getLatestMetadata();
    if (buf == null) {
      return BatchMetadata.NONE;
    }
    byte[] bytes = new byte[(int) buf.readableBytes()];
    buf.getBytes(buf.readerIndex(), bytes);
    try {
      return BatchMetadataParser.fromBytes(bytes);
    } catch (IllegalArgumentException e) {
      throw new InvalidBatchException("Cannot write batch " + index + " to " + id + ": "
          + e.getMessage(), RejectReason.METADATA, e);
    }
  }

  private static long bufferBytes(VectorSchemaRoot batch) {
    long bytes = 0;
    for (FieldVector vector : batch.getFieldVectors()) {
      bytes += vector.getBufferSize();
    }
    return bytes;
  }
}
