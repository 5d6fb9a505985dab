package io.verglas.materializer.commit;

import io.verglas.materializer.delta.TableDelta;
import io.verglas.materializer.delta.TableDeltaSerializer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.core.io.SimpleVersionedSerialization;

/**
 * The committer's deltas not yet committed, in keyed state by table (key: table uuid): each
 * element one writer's delta in the versioned {@link TableDeltaSerializer} form. Keyed, so a
 * table's deltas live in its key group and move with it when the committer is rescaled: every
 * delta of a table is always on the one subtask that commits the table.
 *
 * <p>An index on the heap says which tables have deltas of which checkpoint (only tables with
 * uncommitted deltas: a committed table's state is cleared, so idle tables cost neither heap nor
 * checkpoint bytes). It is rebuilt from the state's keys on restore. Every method runs on the
 * task thread; {@code selectKey} sets the operator's current key.
 */
final class PendingDeltas {
  static final String STATE_NAME = "table-pending-deltas";

  private final ListState<byte[]> state;
  private final Consumer<String> selectKey;
  private final NavigableMap<Long, Set<String>> tablesByCheckpoint = new TreeMap<>();

  PendingDeltas(ListState<byte[]> state, Consumer<String> selectKey) {
    this.state = state;
    this.selectKey = selectKey;
  }

  static ListStateDescriptor<byte[]> descriptor() {
    return new ListStateDescriptor<>(STATE_NAME,
        PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO);
  }

  /** Adds {@code delta} under its table, which must be the current key. */
  void add(TableDelta delta) throws Exception {
    state.add(serialize(delta));
    index(delta);
  }

  /** Rebuilds the index from the restored state of {@code tables} (this subtask's keys). */
  void restore(Iterable<String> tables) throws Exception {
    for (String table : tables) {
      for (TableDelta delta : read(table)) {
        index(delta);
      }
    }
  }

  /** How many checkpoints have deltas waiting. */
  int checkpoints() {
    return tablesByCheckpoint.size();
  }

  /** The oldest checkpoint with deltas, or null when none wait. */
  Long oldest() {
    return tablesByCheckpoint.isEmpty() ? null : tablesByCheckpoint.firstKey();
  }

  /** The deltas of {@code checkpointId}, merged to one per table. */
  List<TableDelta> merged(long checkpointId) throws Exception {
    List<TableDelta> merged = new ArrayList<>();
    for (String table : tablesByCheckpoint.getOrDefault(checkpointId, Set.of())) {
      List<TableDelta> ofCheckpoint = new ArrayList<>();
      for (TableDelta delta : read(table)) {
        if (delta.checkpointId() == checkpointId) {
          ofCheckpoint.add(delta);
        }
      }
      merged.add(TableDelta.merge(ofCheckpoint));
    }
    return merged;
  }

  /** Forgets the deltas of {@code checkpointId} (committed), keeping later ones of each table. */
  void remove(long checkpointId) throws Exception {
    Set<String> tables = tablesByCheckpoint.remove(checkpointId);
    if (tables == null) {
      return;
    }
    for (String table : tables) {
      selectKey.accept(table);
      if (!inLaterCheckpoint(table, checkpointId)) {
        state.clear(); // the usual case: no need to read the deltas back
        continue;
      }
      List<byte[]> later = new ArrayList<>();
      for (byte[] bytes : elements()) {
        if (deserialize(bytes).checkpointId() > checkpointId) {
          later.add(bytes);
        }
      }
      if (later.isEmpty()) {
        state.clear();
      } else {
        state.update(later);
      }
    }
  }

  private boolean inLaterCheckpoint(String table, long checkpointId) {
    for (Set<String> later : tablesByCheckpoint.tailMap(checkpointId, false).values()) {
      if (later.contains(table)) {
        return true;
      }
    }
    return false;
  }

  private void index(TableDelta delta) {
    tablesByCheckpoint.computeIfAbsent(delta.checkpointId(), id -> new LinkedHashSet<>())
        .add(delta.tableUuid());
  }

  private List<TableDelta> read(String table) throws Exception {
    selectKey.accept(table);
    List<TableDelta> deltas = new ArrayList<>();
    for (byte[] bytes : elements()) {
      deltas.add(deserialize(bytes));
    }
    return deltas;
  }

  private Iterable<byte[]> elements() throws Exception {
    Iterable<byte[]> elements = state.get();
    return elements == null ? List.of() : elements;
  }

  static byte[] serialize(TableDelta delta) {
    try {
      return SimpleVersionedSerialization.writeVersionAndSerialize(TableDeltaSerializer.INSTANCE,
          delta);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot serialize " + delta, e);
    }
  }

  static TableDelta deserialize(byte[] bytes) {
    try {
      return SimpleVersionedSerialization.readVersionAndDeSerialize(TableDeltaSerializer.INSTANCE,
          bytes);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read a pending table delta from state", e);
    }
  }
}
