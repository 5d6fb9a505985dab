package io.verglas.materializer.testing;

import io.verglas.arrow.ArrowIpc;
import io.verglas.arrow.ArrowSchemas;
import io.verglas.wal.WalBatch;
import io.verglas.wal.WalLayout;
import io.verglas.wal.WalSegmentCodec;
import io.verglas.wal.WalSegmentHeader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;

/**
 * Writes WAL segments the way the ingest server does (Arrow IPC batches in the segment format),
 * for tests. Rows are maps of column name to value; {@code "_op" -> "D"} marks a delete.
 */
public final class TestingWal {
  private static final AtomicLong CLOCK = new AtomicLong(1L << 40);

  private final ObjectStorePut put;
  private final WalLayout layout;
  private final String streamId;
  private long nextSequence;

  /** Where segment bytes go. */
  @FunctionalInterface
  public interface ObjectStorePut {
    void put(String key, byte[] bytes);
  }

  public TestingWal(ObjectStorePut put, WalLayout layout, String streamId) {
    this.put = put;
    this.layout = layout;
    this.streamId = streamId;
  }

  public static Map<String, Object> row(Object... namesAndValues) {
    Map<String, Object> row = new LinkedHashMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      row.put((String) namesAndValues[i], namesAndValues[i + 1]);
    }
    return row;
  }

  /** A new hybrid-clock stamp, larger than every one handed out before. */
  public static long tick() {
    return CLOCK.addAndGet(1 << 16);
  }

  /** A segment of {@code table}, named by splitting its name at dots (no dots in its levels). */
  public Segment segment(Table table) {
    List<String> name = new ArrayList<>(List.of(table.name().split("\\.")));
    name.remove(0); // the catalog name
    return segment(table, name);
  }

  /** A segment of {@code table}, whose header names it by {@code levels} (namespace, then name). */
  public Segment segment(Table table, List<String> levels) {
    return new Segment(table, levels, nextSequence++);
  }

  public String streamId() {
    return streamId;
  }

  /** A segment being assembled. */
  public final class Segment {
    private final Table table;
    private final List<String> levels;
    private final long sequence;
    private final List<WalBatch> batches = new ArrayList<>();

    private Segment(Table table, List<String> levels, long sequence) {
      this.table = table;
      this.levels = List.copyOf(levels);
      this.sequence = sequence;
    }

    @SafeVarargs
    public final Segment batch(Map<String, Object>... rows) {
      return batchAt(tick(), rows);
    }

    /** A batch stamped with an explicit clock value (to test last-writer-wins across streams). */
    @SafeVarargs
    public final Segment batchAt(long hlc, Map<String, Object>... rows) {
      batches.add(new WalBatch(hlc, rows.length, null, encode(table, List.of(rows))));
      return this;
    }

    public byte[] bytes() {
      long records = batches.stream().mapToLong(WalBatch::rowCount).sum();
      long min = batches.stream().mapToLong(WalBatch::hlc).min().orElse(0);
      long max = batches.stream().mapToLong(WalBatch::hlc).max().orElse(0);
      WalSegmentHeader header = new WalSegmentHeader(table.uuid().toString(), levels,
          table.schema().schemaId(), streamId, sequence, records, min, max,
          System.currentTimeMillis());
      return WalSegmentCodec.encode(header, batches);
    }

    /** Writes the segment; returns its key. */
    public String put() {
      String key = layout.segmentKey(streamId, sequence);
      put.put(key, bytes());
      return key;
    }
  }

  static byte[] encode(Table table, List<Map<String, Object>> rows) {
    boolean hasOp = rows.stream().anyMatch(r -> r.containsKey(ArrowSchemas.OP_COLUMN));
    List<Field> fields = new ArrayList<>(ArrowSchemas.toArrow(table.schema()).getFields());
    if (hasOp) {
      fields.add(new Field(ArrowSchemas.OP_COLUMN,
          new FieldType(true, ArrowType.Utf8.INSTANCE, null), null));
    }
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(
            new org.apache.arrow.vector.types.pojo.Schema(fields), allocator)) {
      root.allocateNew();
      for (int r = 0; r < rows.size(); r++) {
        for (FieldVector vector : root.getFieldVectors()) {
          set(vector, r, rows.get(r).get(vector.getName()));
        }
      }
      root.setRowCount(rows.size());
      return ArrowIpc.encode(root);
    }
  }

  private static void set(FieldVector vector, int row, Object value) {
    if (value == null) {
      vector.setNull(row);
    } else if (vector instanceof IntVector v) {
      v.setSafe(row, ((Number) value).intValue());
    } else if (vector instanceof BigIntVector v) {
      v.setSafe(row, ((Number) value).longValue());
    } else if (vector instanceof Float8Vector v) {
      v.setSafe(row, ((Number) value).doubleValue());
    } else if (vector instanceof BitVector v) {
      v.setSafe(row, (Boolean) value ? 1 : 0);
    } else if (vector instanceof VarCharVector v) {
      v.setSafe(row, value.toString().getBytes(StandardCharsets.UTF_8));
    } else {
      throw new IllegalArgumentException("TestingWal cannot write " + vector.getField());
    }
  }

  /** Column types TestingWal supports, for tests that build schemas. */
  public static boolean supports(Types.NestedField field) {
    switch (field.type().typeId()) {
      case INTEGER: case LONG: case DOUBLE: case BOOLEAN: case STRING: return true;
      default: return false;
    }
  }
}
