package io.verglas.query.lookup;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.InclusiveMetricsEvaluator;
import org.apache.iceberg.expressions.Projections;
import org.apache.iceberg.types.Types;

/**
 * Rows by primary key without a scan: the snapshot's files come from a cached plan
 * ({@link SnapshotPlans}), each key keeps only the files whose partition and key-column bounds
 * may hold it, and each such file is read by {@link FileLookup} (row groups by statistics and
 * bloom filter, then only the pages of the matching rows), its position deletes applied.
 *
 * <p>What it does not answer it says before sending any row, and the caller reads with the
 * generic reader instead: a key or projected column of a type it does not decode (nested types,
 * decimals in the key, ...), a candidate file that is not Parquet or whose columns it cannot
 * map, and a candidate file with equality deletes (applying those needs the rows of other
 * files' keys: the generic reader's delete filter does that, so such a lookup falls back).
 *
 * <p>Memory is bounded by the builder's limits: planned tasks held, footers held, bloom-filter
 * bytes, index bytes and decoded key bytes held.
 */
public final class KeyLookup {
  private final SnapshotPlans plans;
  private final ParquetFiles files;

  private KeyLookup(Builder builder) {
    this.plans = new SnapshotPlans(builder.maxPlannedTasks);
    this.files = new ParquetFiles(builder.maxFooters, builder.maxBloomFilterBytes, builder.maxIndexBytes,
        builder.maxDecodedKeyBytes);
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Sends the rows of {@code keys} in {@code snapshot}, as records of {@code projection}, to
   * {@code sink} until it returns false; returns false, having sent nothing, when this reader
   * cannot answer and the generic reader must.
   *
   * @param schema the snapshot's schema
   * @param keyColumns the primary-key columns
   * @param keys each key's values in Iceberg's internal form (as bound literals hold them), in
   *     the order of {@code keyColumns}
   * @param checkDeadline called between files; throws to stop the lookup
   */
  public boolean lookup(Table table, Snapshot snapshot, Schema schema, Schema projection,
      List<String> keyColumns, List<List<Object>> keys, Predicate<Record> sink, Runnable checkDeadline) {
    List<Types.NestedField> keyFields = new ArrayList<>();
    for (String column : keyColumns) {
      keyFields.add(schema.findField(column));
    }
    if (!keyFields.stream().allMatch(f -> f.type().isPrimitiveType() && ColumnValues.supportedKey(f.type()))
        || !projection.columns().stream().allMatch(f -> f.type().isPrimitiveType() && ColumnValues.supported(f.type()))) {
      return false;
    }
    SnapshotPlans.Plan plan = plans.plan(table, snapshot, keyColumns);
    Map<FileScanTask, List<List<Object>>> candidates = candidates(plan, schema, keyFields, keys);
    List<FileScanTask> tasks = new ArrayList<>(candidates.keySet());
    for (FileScanTask task : tasks) {
      if (task.file().format() != FileFormat.PARQUET
          || task.deletes().stream().anyMatch(d -> d.content() == FileContent.EQUALITY_DELETES)) {
        return false;
      }
    }
    List<FileLookup> lookups = new ArrayList<>();
    List<ParquetFiles.Reader> open = new ArrayList<>();
    try {
      for (FileScanTask task : tasks) {
        ParquetFiles.Reader reader = files.open(table.io(), task);
        open.add(reader);
        FileColumns columns = new FileColumns(reader.footer().getFileMetaData().getSchema());
        if (!columns.readable(keyFields, projection.columns())) {
          return false;
        }
        lookups.add(new FileLookup(reader, columns, keyFields, projection));
      }
      for (int i = 0; i < tasks.size(); i++) {
        checkDeadline.run();
        FileScanTask task = tasks.get(i);
        if (!lookups.get(i).read(candidates.get(task), plan.deletes(task, table.io()), sink)) {
          break;
        }
      }
      return true;
    } finally {
      open.forEach(ParquetFiles.Reader::close);
    }
  }

  /** Per file that may hold some of the keys, those keys as Parquet values, in plan order. */
  private static Map<FileScanTask, List<List<Object>>> candidates(SnapshotPlans.Plan plan, Schema schema,
      List<Types.NestedField> keyFields, List<List<Object>> keys) {
    Map<FileScanTask, List<List<Object>>> candidates = new LinkedHashMap<>();
    Map<FileScanTask, Integer> order = new HashMap<>();
    for (int t = 0; t < plan.tasks.size(); t++) {
      order.put(plan.tasks.get(t), t);
    }
    for (List<Object> key : keys) {
      Expression all = Expressions.alwaysTrue();
      List<Object> parquet = new ArrayList<>(key.size());
      for (int k = 0; k < keyFields.size(); k++) {
        all = Expressions.and(all, Expressions.equal(keyFields.get(k).name(), key.get(k)));
        parquet.add(ColumnValues.toParquet(keyFields.get(k).type(), key.get(k)));
      }
      Expression equal = all;
      InclusiveMetricsEvaluator metrics = new InclusiveMetricsEvaluator(schema, equal);
      Map<Integer, Evaluator> partitions = new HashMap<>();
      for (FileScanTask task : plan.tasks) {
        PartitionSpec spec = task.spec();
        Evaluator partition = partitions.computeIfAbsent(spec.specId(), id ->
            new Evaluator(spec.partitionType(), Projections.inclusive(spec).project(equal)));
        if ((spec.isUnpartitioned() || partition.eval(task.file().partition())) && metrics.eval(task.file())) {
          candidates.computeIfAbsent(task, t -> new ArrayList<>()).add(parquet);
        }
      }
    }
    // plan order, so the answer's order does not depend on the keys' order
    Map<FileScanTask, List<List<Object>>> ordered = new LinkedHashMap<>();
    candidates.keySet().stream().sorted((a, b) -> Integer.compare(order.get(a), order.get(b)))
        .forEach(task -> ordered.put(task, candidates.get(task)));
    return ordered;
  }

  /** The bounds of a key reader's memory. */
  public static final class Builder {
    private long maxPlannedTasks = 200_000;
    private long maxFooters = 10_000;
    private long maxBloomFilterBytes = 256L << 20;
    private long maxIndexBytes = 256L << 20;
    private long maxDecodedKeyBytes = 256L << 20;

    private Builder() {}

    /** File scan tasks of cached snapshot plans (200 000 by default). */
    public Builder maxPlannedTasks(long tasks) {
      this.maxPlannedTasks = positive(tasks, "planned tasks");
      return this;
    }

    /** Decoded Parquet footers kept (10 000 by default). */
    public Builder maxFooters(long footers) {
      this.maxFooters = positive(footers, "footers");
      return this;
    }

    /** Bytes of key-column bloom filters kept (256 MiB by default). */
    public Builder maxBloomFilterBytes(long bytes) {
      this.maxBloomFilterBytes = positive(bytes, "bloom-filter bytes");
      return this;
    }

    /** Bytes of data files' page indexes and bloom filters kept as read (256 MiB by default). */
    public Builder maxIndexBytes(long bytes) {
      this.maxIndexBytes = positive(bytes, "index bytes");
      return this;
    }

    /** Bytes of row groups' decoded integral keys kept, 12 a row (256 MiB by default). */
    public Builder maxDecodedKeyBytes(long bytes) {
      this.maxDecodedKeyBytes = positive(bytes, "decoded key bytes");
      return this;
    }

    public KeyLookup build() {
      return new KeyLookup(this);
    }

    private static long positive(long value, String what) {
      if (value <= 0) {
        throw new IllegalArgumentException("Invalid maximum of " + what + ": " + value + " (must be positive)");
      }
      return value;
    }
  }
}
