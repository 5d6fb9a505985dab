package io.verglas.query.lookup;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;

/**
 * The file scan tasks of snapshots looked up recently, each with its delete files, so that a
 * lookup reads no manifest list and no manifest: a snapshot is immutable, so its plan never goes
 * stale, it only ages out. Bounded by the number of tasks held (a task keeps the bounds of the
 * key columns only). The position deletes of a planned file (its deletion vector or v2 position
 * delete files) are loaded on first use and kept with the plan.
 */
final class SnapshotPlans {
  private final Cache<Key, Plan> plans;

  SnapshotPlans(long maxTasks) {
    this.plans = Caffeine.newBuilder().maximumWeight(maxTasks)
        .weigher((Key key, Plan plan) -> Math.max(1, plan.tasks.size())).build();
  }

  Plan plan(Table table, Snapshot snapshot, Collection<String> keyColumns) {
    return plans.get(new Key(table.uuid(), snapshot.snapshotId()), key -> load(table, snapshot, keyColumns));
  }

  private static Plan load(Table table, Snapshot snapshot, Collection<String> keyColumns) {
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned = table.newScan().useSnapshot(snapshot.snapshotId())
        .includeColumnStats(keyColumns).planFiles()) {
      planned.forEach(tasks::add);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot plan " + table.name() + " at snapshot "
          + snapshot.snapshotId() + ": " + e.getMessage(), e);
    }
    return new Plan(List.copyOf(tasks));
  }

  private record Key(java.util.UUID tableUuid, long snapshotId) {}

  /** One snapshot's tasks and the position deletes of its files loaded so far. */
  static final class Plan {
    final List<FileScanTask> tasks;
    private final ConcurrentMap<String, PositionDeleteIndex> deletes = new ConcurrentHashMap<>();

    Plan(List<FileScanTask> tasks) {
      this.tasks = tasks;
    }

    /**
     * The deleted positions of the task's file (none when it has no delete file), read through
     * {@code io} (the caller's: the table the plan was made with may be closed since).
     */
    PositionDeleteIndex deletes(FileScanTask task, FileIO io) {
      if (task.deletes().isEmpty()) {
        return PositionDeleteIndex.empty();
      }
      String path = task.file().location();
      return deletes.computeIfAbsent(path, p -> new BaseDeleteLoader(io::newInputFile)
          .loadPositionDeletes(task.deletes(), p));
    }
  }
}
