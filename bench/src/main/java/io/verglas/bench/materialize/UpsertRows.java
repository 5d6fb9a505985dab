package io.verglas.bench.materialize;

import io.verglas.table.PrimaryKeys;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * The benchmark's input, identical for the three writers: upsert number {@code i} (0 ≤ i <
 * upserts) of key {@link #key(long)} with 10 columns whose values derive from {@code i} alone.
 * Keys are a permutation of {@code i mod keys}, so every key gets upserts/keys versions, spread
 * over the whole run (version {@code v} of every key comes before version {@code v + 1} of any).
 */
final class UpsertRows {
  static final Schema SCHEMA = PrimaryKeys.withPrimaryKey(new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "account_id", Types.LongType.get()),
      Types.NestedField.optional(3, "name", Types.StringType.get()),
      Types.NestedField.optional(4, "category", Types.StringType.get()),
      Types.NestedField.optional(5, "note", Types.StringType.get()),
      Types.NestedField.optional(6, "price", Types.DoubleType.get()),
      Types.NestedField.optional(7, "quantity", Types.DoubleType.get()),
      Types.NestedField.optional(8, "created_ms", Types.LongType.get()),
      Types.NestedField.optional(9, "updated_ms", Types.LongType.get()),
      Types.NestedField.optional(10, "score", Types.IntegerType.get())), List.of("id"));
  static final int COLUMNS = 10;
  private static final String[] CATEGORIES = {"books", "garden", "tools", "music", "toys", "food"};
  private static final long STEP = 7_919; // prime, coprime with any keys = 2^a * 5^b
  private static final long BASE_MS = 1_767_225_600_000L;

  private UpsertRows() {}

  /** The key of upsert {@code i}: a permutation of {@code i mod keys}. */
  static long key(long i, long keys) {
    return (i % keys) * STEP % keys;
  }

  /** The values of upsert {@code i}, in schema order. */
  static Object[] values(long i, long keys) {
    SplittableRandom random = new SplittableRandom(i * 0x9E3779B97F4A7C15L);
    long id = key(i, keys);
    return new Object[] {
        id,
        random.nextLong(1_000_000),
        String.format("user-%010d", id),
        CATEGORIES[random.nextInt(CATEGORIES.length)],
        Long.toString(random.nextLong(), 36) + "-" + i,
        random.nextDouble() * 1_000,
        (double) random.nextInt(100),
        BASE_MS + id,
        BASE_MS + i,
        random.nextInt(100)};
  }

  /** Fills {@code root} (allocated from {@link #SCHEMA}'s Arrow form) with upserts [first, first+count). */
  static void fill(VectorSchemaRoot root, long first, int count, long keys) {
    root.allocateNew();
    for (int r = 0; r < count; r++) {
      Object[] v = values(first + r, keys);
      ((BigIntVector) root.getVector("id")).setSafe(r, (Long) v[0]);
      ((BigIntVector) root.getVector("account_id")).setSafe(r, (Long) v[1]);
      ((VarCharVector) root.getVector("name")).setSafe(r, utf8(v[2]));
      ((VarCharVector) root.getVector("category")).setSafe(r, utf8(v[3]));
      ((VarCharVector) root.getVector("note")).setSafe(r, utf8(v[4]));
      ((Float8Vector) root.getVector("price")).setSafe(r, (Double) v[5]);
      ((Float8Vector) root.getVector("quantity")).setSafe(r, (Double) v[6]);
      ((BigIntVector) root.getVector("created_ms")).setSafe(r, (Long) v[7]);
      ((BigIntVector) root.getVector("updated_ms")).setSafe(r, (Long) v[8]);
      ((IntVector) root.getVector("score")).setSafe(r, (Integer) v[9]);
    }
    root.setRowCount(count);
  }

  private static byte[] utf8(Object text) {
    return text.toString().getBytes(StandardCharsets.UTF_8);
  }
}
