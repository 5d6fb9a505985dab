package io.verglas.ingest;

import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.ArrowType;
import io.verglas.arrow.ColumnWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Hand-made Arrow batches for shapes a well-behaved builder would never produce. Roots it
 * makes are closed with it; vectors are owned by their root.
 */
public final class TestVectors implements AutoCloseable {
  private final BufferAllocator allocator;
  private final List<AutoCloseable> open = new ArrayList<>();

  public TestVectors(BufferAllocator allocator) {
    this.allocator = allocator;
  }

  public BufferAllocator allocator() {
    return allocator;
  }

  /** Closes the vector with this object (for vectors made outside the helpers). */
  public <T extends AutoCloseable> T track(T vector) {
    open.add(vector);
    return vector;
  }

  public VectorSchemaRoot root(FieldVector... vectors) {
    List<Field> fields = new ArrayList<>();
    for (FieldVector vector : vectors) {
      fields.add(vector.getField());
    }
    VectorSchemaRoot root = new VectorSchemaRoot(fields, List.of(vectors),
        vectors.length == 0 ? 0 : vectors[0].getValueCount());
    open.add(root);
    return root;
  }

  /** A List vector of {@code element} values (a nullable element), one list (or null) a row. */
  public FieldVector lists(String name, ArrowType element, List<?>... cells) {
    return written(new Field(name, FieldType.nullable(ArrowType.List.INSTANCE),
        List.of(Field.nullable("element", element))), cells);
  }

  /** A Struct vector of {@code fields}, one map of field values (or null) a row. */
  public FieldVector structs(String name, List<Field> fields, Map<?, ?>... cells) {
    return written(new Field(name, FieldType.nullable(ArrowType.Struct.INSTANCE), fields), cells);
  }

  private FieldVector written(Field field, Object... cells) {
    FieldVector vector = field.createVector(allocator);
    open.add(vector);
    ColumnWriter writer = ColumnWriter.forField(field);
    vector.allocateNew();
    for (int i = 0; i < cells.length; i++) {
      writer.write(vector, i, writer.convert(cells[i]));
    }
    vector.setValueCount(cells.length);
    return vector;
  }

  public BigIntVector longs(String name, Long... values) {
    BigIntVector vector = new BigIntVector(name, allocator);
    open.add(vector);
    vector.allocateNew(values.length);
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) {
        vector.setNull(i);
      } else {
        vector.set(i, values[i]);
      }
    }
    vector.setValueCount(values.length);
    return vector;
  }

  public IntVector ints(String name, int... values) {
    IntVector vector = new IntVector(name, allocator);
    open.add(vector);
    vector.allocateNew(values.length);
    for (int i = 0; i < values.length; i++) {
      vector.set(i, values[i]);
    }
    vector.setValueCount(values.length);
    return vector;
  }

  public VarCharVector strings(String name, String... values) {
    VarCharVector vector = new VarCharVector(name, allocator);
    open.add(vector);
    vector.allocateNew();
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) {
        vector.setNull(i);
      } else {
        vector.setSafe(i, values[i].getBytes(StandardCharsets.UTF_8));
      }
    }
    vector.setValueCount(values.length);
    return vector;
  }

  @Override
  public void close() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
    open.clear();
  }
}
