package io.verglas.ingest.flight;

import io.verglas.arrow.ArrowIpc;
import io.verglas.ingest.table.IngestTable;
import io.verglas.ingest.table.TableCache;
import io.verglas.ingest.validation.BatchValidator;
import io.verglas.ingest.validation.ColumnPlan;
import io.verglas.ingest.validation.InvalidBatchException;
import io.verglas.ingest.wal.GroupCommitter;
import io.verglas.protocol.BatchMetadata;
import io.verglas.protocol.BatchMetadataParser;
import io.verglas.protocol.PutAck;
import io.verglas.table.VerglasTableProperties;
import java.util.concurrent.CompletableFuture;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * One DoPut call: reads batches, validates each against the table, encodes it and hands it to
 * the stream's group commit; {@link AckSender} acknowledges them as they become durable.
 *
 * <p>The stream's columns are matched with the table once (reloading the table before
 * rejecting, in case the schema just evolved). A bad batch ends the call with
 * INVALID_ARGUMENT after the acks of the batches before it; nothing of the bad batch is
 * written. Encoding happens on this thread, so the WAL flusher only concatenates bytes.
 */
final class PutHandler implements Runnable {
  private final FlightStream stream;
  private final AckSender acks;
  private final TableCache tables;
  private final BatchValidator validator;
  private final GroupCommitter committer;

  PutHandler(FlightStream stream, AckSender acks, TableCache tables, BatchValidator validator,
      GroupCommitter committer) {
    this.stream = stream;
    this.acks = acks;
    this.tables = tables;
    this.validator = validator;
    this.committer = committer;
  }

  @Override
  public void run() {
    FlightRuntimeException error = null;
    try {
      readAll();
    } catch (RuntimeException e) {
      error = Statuses.toFlight(e);
    }
    acks.finish(error);
  }

  private void readAll() {
    TableIdentifier id = TableDescriptors.identifier(stream.getDescriptor());
    ColumnPlan plan = plan(id, stream.getSchema());
    IngestTable table = plan.table();
    int index = 0;
    while (!acks.ended() && next(id, index)) {
      VectorSchemaRoot batch = stream.getRoot();
      BatchMetadata metadata = metadata(id, index);
      validator.validate(batch, plan, index);
      byte[] ipc = ArrowIpc.encode(batch);
      CompletableFuture<PutAck> ack = committer.append(table.segmentTarget(), ipc,
          batch.getRowCount(), metadata.idempotencyKey());
      acks.track(ack);
      index++;
    }
  }

  private ColumnPlan plan(TableIdentifier id, Schema schema) {
    IngestTable table = tables.get(id);
    ColumnPlan plan = validator.plan(schema, table);
    if (!plan.ok() || !table.managed()) {
      // The cached schema may predate a change that makes this stream fit.
      table = tables.reload(id);
      plan = validator.plan(schema, table);
    }
    if (!table.managed()) {
      throw new InvalidBatchException("Cannot write to " + id + ": the table is not managed by "
          + "Verglas (table property " + VerglasTableProperties.MANAGED + " is not 'true'); "
          + "create it with the create-table action");
    }
    if (!plan.ok()) {
      throw new InvalidBatchException("Cannot write to " + id + ": the stream's columns do not "
          + "fit the table: " + plan.problems().describe());
    }
    return plan;
  }

  private boolean next(TableIdentifier id, int index) {
    try {
      return stream.next();
    } catch (FlightRuntimeException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new InvalidBatchException("Cannot read batch " + index + " of the stream to " + id
          + ": malformed Arrow data: " + e.getMessage(), e);
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
          + e.getMessage(), e);
    }
  }
}
