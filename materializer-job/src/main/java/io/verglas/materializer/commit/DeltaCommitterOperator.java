package io.verglas.materializer.commit;

import io.verglas.events.EventPublisher;
import io.verglas.materializer.MaterializerConfig;
import io.verglas.materializer.delta.TableDelta;
import io.verglas.materializer.delta.TableDeltaSerializer;
import io.verglas.materializer.store.WalStore;
import io.verglas.materializer.table.VerglasTables;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.core.io.SimpleVersionedSerialization;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The committer (parallelism 1): collects the writers' {@link TableDelta}s and commits them to
 * Iceberg once the checkpoint they belong to is complete.
 *
 * <p>Design. Writers emit their deltas before the checkpoint barrier, so with aligned
 * checkpoints every delta of checkpoint {@code c} has arrived when this operator snapshots
 * {@code c}; it keeps them, keyed by checkpoint id, in operator state (each delta in the
 * versioned {@link TableDeltaSerializer} form). {@code notifyCheckpointComplete(c)} commits every
 * pending checkpoint {@code <= c} in order (a notification may be lost; the next one covers it),
 * one Iceberg commit per table and checkpoint, through {@link TableCommitter}. The tables of one
 * checkpoint are committed concurrently, {@link MaterializerConfig#committerThreads} at once
 * (they touch disjoint tables); every one of them ends before the checkpoint leaves the pending
 * state and before the next checkpoint's commits begin, so a table's commits stay in checkpoint
 * order. Deltas restored
 * from a checkpoint belong to a completed checkpoint and are committed on open; those already
 * committed before the restart are recognised by the WAL marks in the snapshot summary.
 *
 * <p>A failed commit fails the job (the restart retries it from state), once the other tables'
 * commits of its checkpoint have ended: those that succeeded are recognised on the restart and
 * skipped, so a failure between the tables of a checkpoint neither loses nor repeats one.
 * Unaligned checkpoints
 * must stay off: with them a delta could reach this operator after the snapshot of its own
 * checkpoint, and only part of a checkpoint would be committed.
 */
public final class DeltaCommitterOperator extends AbstractStreamOperator<Void>
    implements OneInputStreamOperator<TableDelta, Void> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(DeltaCommitterOperator.class);

  private final MaterializerConfig config;
  private transient ListState<byte[]> state;
  private transient NavigableMap<Long, List<TableDelta>> pending;
  private transient VerglasTables tables;
  private transient WalStore store;
  private transient EventPublisher events;
  private transient TableCommitter committer;
  private transient TableCommits commits;

  public DeltaCommitterOperator(MaterializerConfig config) {
    this.config = config;
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    state = context.getOperatorStateStore().getListState(new ListStateDescriptor<>(
        "pending-deltas", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
    pending = new TreeMap<>();
    if (context.isRestored()) {
      for (byte[] bytes : state.get()) {
        add(SimpleVersionedSerialization.readVersionAndDeSerialize(
            TableDeltaSerializer.INSTANCE, bytes));
      }
      LOG.info("Restored {} pending checkpoints of table deltas", pending.size());
    }
  }

  @Override
  public void open() throws Exception {
    super.open();
    tables = new VerglasTables(config.newCatalog());
    store = config.newWalStore();
    events = config.newEventPublisher();
    String jobId = getRuntimeContext().getJobInfo().getJobId().toString();
    committer = new TableCommitter(tables, store, events, jobId);
    commits = new TableCommits(committer, config.committerThreads());
    // Restored deltas belong to a checkpoint that completed: commit them now.
    commitUpTo(Long.MAX_VALUE);
  }

  @Override
  public void processElement(StreamRecord<TableDelta> element) {
    add(element.getValue());
  }

  private void add(TableDelta delta) {
    pending.computeIfAbsent(delta.checkpointId(), id -> new ArrayList<>()).add(delta);
  }

  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    super.snapshotState(context);
    List<byte[]> serialized = new ArrayList<>();
    for (List<TableDelta> deltas : pending.values()) {
      for (TableDelta delta : deltas) {
        serialized.add(SimpleVersionedSerialization.writeVersionAndSerialize(
            TableDeltaSerializer.INSTANCE, delta));
      }
    }
    state.update(serialized);
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) throws Exception {
    super.notifyCheckpointComplete(checkpointId);
    commitUpTo(checkpointId);
  }

  private void commitUpTo(long checkpointId) {
    Iterator<Map.Entry<Long, List<TableDelta>>> checkpoints =
        pending.headMap(checkpointId, true).entrySet().iterator();
    while (checkpoints.hasNext()) {
      Map.Entry<Long, List<TableDelta>> checkpoint = checkpoints.next();
      Map<String, List<TableDelta>> byTable = new LinkedHashMap<>();
      for (TableDelta delta : checkpoint.getValue()) {
        byTable.computeIfAbsent(delta.tableUuid(), uuid -> new ArrayList<>()).add(delta);
      }
      List<TableDelta> merged = new ArrayList<>();
      byTable.values().forEach(deltas -> merged.add(TableDelta.merge(deltas)));
      commits.commitAll(checkpoint.getKey(), merged);
      checkpoints.remove();
    }
  }

  /** Test seam: the committer, once open. */
  TableCommitter committer() {
    return committer;
  }

  @Override
  public void close() throws Exception {
    try (AutoCloseable closeTables = tables; AutoCloseable closeStore = store;
        AutoCloseable closeEvents = events; AutoCloseable closeCommits = commits) {
      // closed in reverse order
    } finally {
      super.close();
    }
  }
}
