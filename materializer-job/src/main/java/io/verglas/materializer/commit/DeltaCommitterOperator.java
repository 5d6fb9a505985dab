package io.verglas.materializer.commit;

import io.verglas.events.EventPublisher;
import io.verglas.materializer.MaterializerConfig;
import io.verglas.materializer.delta.TableDelta;
import io.verglas.materializer.store.WalStore;
import io.verglas.materializer.table.VerglasTables;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The committer: collects the writers' {@link TableDelta}s and commits them to Iceberg once the
 * checkpoint they belong to is complete. Its input is keyed by table ({@code
 * committer.parallelism} subtasks share the tables by key group), so each table is committed by
 * exactly one subtask, which sees every writer's delta of it.
 *
 * <p>Design. Writers emit their deltas before the checkpoint barrier, so with aligned
 * checkpoints every delta of checkpoint {@code c} has arrived when this operator snapshots
 * {@code c}; it keeps them in keyed state by table ({@link PendingDeltas}).
 * {@code notifyCheckpointComplete(c)} commits every pending checkpoint {@code <= c} in order (a
 * notification may be lost; the next one covers it), one Iceberg commit per table and
 * checkpoint, through {@link TableCommitter}. The tables of one checkpoint are committed
 * concurrently, {@link MaterializerConfig#committerThreads} at once (they touch disjoint
 * tables); every one of them ends before the checkpoint leaves the pending state and before the
 * next checkpoint's commits begin, so a table's commits stay in checkpoint order. Deltas
 * restored from a checkpoint belong to a completed checkpoint and are committed on open; those
 * already committed before the restart are recognised by the WAL marks in the snapshot summary.
 *
 * <p>Why subtasks need no coordination: a WAL segment holds rows of one table only, and the
 * committed WAL marks are per table (its snapshot summaries), so what one subtask commits never
 * decides what another may skip or delete. Each subtask deletes the segments its tables'
 * commits cover and publishes their catalog events. Rescaled, a table's pending deltas move
 * with its key group, and restored commits run in {@code open}, before any new checkpoint can
 * complete, so a table's commits stay in checkpoint order across subtasks too.
 *
 * <p>A failed commit fails the job (the restart retries it from state), once the other tables'
 * commits of its checkpoint on this subtask have ended: those that succeeded are recognised on
 * the restart and skipped, so a failure between the tables of a checkpoint neither loses nor
 * repeats one. Unaligned checkpoints must stay off: with them a delta could reach this operator
 * after the snapshot of its own checkpoint, and only part of a checkpoint would be committed.
 *
 * <p>Before the committer was keyed, its pending deltas were operator state ({@value
 * #LEGACY_STATE}) of a single subtask, and such a checkpoint carries max parallelism 1 for it:
 * Flink restores it only at committer parallelism 1, where every table is this subtask's, and
 * the deltas move into the keyed state here.
 */
public final class DeltaCommitterOperator extends AbstractStreamOperator<Void>
    implements OneInputStreamOperator<TableDelta, Void> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(DeltaCommitterOperator.class);
  static final String LEGACY_STATE = "pending-deltas";

  private final MaterializerConfig config;
  private transient PendingDeltas pending;
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
    pending = new PendingDeltas(context.getKeyedStateStore().getListState(
        PendingDeltas.descriptor()), this::setCurrentKey);
    if (context.isRestored()) {
      pending.restore(restoredTables());
      migrateLegacy(context.getOperatorStateStore().getListState(new ListStateDescriptor<>(
          LEGACY_STATE, PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO)));
      LOG.info("Restored {} pending checkpoints of table deltas", pending.checkpoints());
    }
  }

  private List<String> restoredTables() {
    KeyedStateBackend<String> backend = getKeyedStateBackend();
    try (Stream<String> keys = backend.getKeys(PendingDeltas.STATE_NAME, VoidNamespace.INSTANCE)) {
      return keys.toList();
    }
  }

  private void migrateLegacy(ListState<byte[]> legacy) throws Exception {
    for (byte[] bytes : legacy.get()) {
      TableDelta delta = PendingDeltas.deserialize(bytes);
      setCurrentKey(delta.tableUuid());
      pending.add(delta);
    }
    legacy.clear();
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
  public void processElement(StreamRecord<TableDelta> element) throws Exception {
    pending.add(element.getValue());
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) throws Exception {
    super.notifyCheckpointComplete(checkpointId);
    commitUpTo(checkpointId);
  }

  private void commitUpTo(long checkpointId) throws Exception {
    for (Long oldest = pending.oldest(); oldest != null && oldest <= checkpointId;
        oldest = pending.oldest()) {
      commits.commitAll(oldest, pending.merged(oldest));
      pending.remove(oldest);
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
