package io.verglas.bench.ingest;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * The benchmark's rows: 10 columns of ids, strings, doubles and timestamps, about 100 bytes a
 * row, generated from a fixed seed so every run pushes the same data.
 */
final class BenchRows {
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "account_id", Types.LongType.get()),
      Types.NestedField.optional(3, "name", Types.StringType.get()),
      Types.NestedField.optional(4, "category", Types.StringType.get()),
      Types.NestedField.optional(5, "note", Types.StringType.get()),
      Types.NestedField.optional(6, "price", Types.DoubleType.get()),
      Types.NestedField.optional(7, "quantity", Types.DoubleType.get()),
      Types.NestedField.optional(8, "created_at", Types.TimestampType.withZone()),
      Types.NestedField.optional(9, "updated_at", Types.TimestampType.withZone()),
      Types.NestedField.optional(10, "score", Types.IntegerType.get()));
  private static final String[] CATEGORIES = {"books", "garden", "tools", "music", "toys", "food"};

  private BenchRows() {}

  /** {@code rows} rows cut into batches and dealt round-robin to {@code clients} lists. */
  static List<List<VectorSchemaRoot>> batches(org.apache.arrow.vector.types.pojo.Schema arrow,
      BufferAllocator allocator, int rows, int batchRows, int clients) {
    List<List<VectorSchemaRoot>> perClient = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      perClient.add(new ArrayList<>());
    }
    SplittableRandom random = new SplittableRandom(42);
    int batch = 0;
    for (long first = 0; first < rows; first += batchRows, batch++) {
      int count = (int) Math.min(batchRows, rows - first);
      perClient.get(batch % clients).add(batch(arrow, allocator, first, count, random));
    }
    return perClient;
  }

  private static VectorSchemaRoot batch(org.apache.arrow.vector.types.pojo.Schema arrow,
      BufferAllocator allocator, long firstId, int count, SplittableRandom random) {
    VectorSchemaRoot root = VectorSchemaRoot.create(arrow, allocator);
    root.allocateNew();
    BigIntVector id = (BigIntVector) root.getVector("id");
    BigIntVector account = (BigIntVector) root.getVector("account_id");
    VarCharVector name = (VarCharVector) root.getVector("name");
    VarCharVector category = (VarCharVector) root.getVector("category");
    VarCharVector note = (VarCharVector) root.getVector("note");
    Float8Vector price = (Float8Vector) root.getVector("price");
    Float8Vector quantity = (Float8Vector) root.getVector("quantity");
    TimeStampMicroTZVector created = (TimeStampMicroTZVector) root.getVector("created_at");
    TimeStampMicroTZVector updated = (TimeStampMicroTZVector) root.getVector("updated_at");
    IntVector score = (IntVector) root.getVector("score");
    long baseMicros = 1_767_225_600_000_000L;
    for (int i = 0; i < count; i++) {
      long key = firstId + i;
      id.setSafe(i, key);
      account.setSafe(i, random.nextLong(1_000_000));
      name.setSafe(i, utf8(String.format("user-%010d", key)));
      category.setSafe(i, utf8(CATEGORIES[random.nextInt(CATEGORIES.length)]));
      note.setSafe(i, utf8(Long.toString(random.nextLong(), 36) + "-" + (key % 9_973)));
      price.setSafe(i, random.nextDouble() * 1_000);
      quantity.setSafe(i, random.nextInt(100));
      created.setSafe(i, baseMicros + key * 1_000);
      updated.setSafe(i, baseMicros + key * 1_000 + random.nextInt(1_000_000));
      score.setSafe(i, random.nextInt(100));
    }
    root.setRowCount(count);
    return root;
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
