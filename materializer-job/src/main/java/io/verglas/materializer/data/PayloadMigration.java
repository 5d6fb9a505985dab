package io.verglas.materializer.data;

import io.verglas.row.RowCodec;
import io.verglas.row.RowDecoder;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * Makes a payload encoded with one schema of a table readable with another of its schemas.
 *
 * <p>Why: the source encodes a row with the table's schema when it reads the row's segment, and
 * the writer writes it with the schema its open files were opened with. Between the two, the
 * table may change. Payloads are keyed by field id, so an added column reads as null and a
 * renamed one is found under its new name; but a promoted column (int to long, float to double,
 * a wider decimal) changes its value's width, and reading the old bytes with
 * the new type would misread the row. Such payloads are decoded with the schema they were
 * encoded with and encoded again; payloads whose shared columns kept their types pass as they
 * are.
 */
public final class PayloadMigration {
  private PayloadMigration() {}

  /**
   * The migration of payloads of schema {@code from} to schema {@code to} of the same table.
   *
   * @throws IllegalStateException if a column of both changed its type in a way Iceberg does not
   *     allow (no promotion)
   */
  public static UnaryOperator<byte[]> between(Schema from, Schema to) {
    boolean sameTypes = to.columns().stream().allMatch(column -> {
      Types.NestedField before = from.findField(column.fieldId());
      return before == null || before.type().equals(column.type());
    });
    if (sameTypes) {
      return UnaryOperator.identity();
    }
    RowDecoder decoder = new RowDecoder(from);
    List<Types.NestedField> columns = to.columns();
    int[] sources = new int[columns.size()];
    for (int i = 0; i < sources.length; i++) {
      Types.NestedField column = columns.get(i);
      sources[i] = from.columns().indexOf(from.findField(column.fieldId()));
      if (sources[i] >= 0) {
        checkPromotion(from.columns().get(sources[i]).type(), column);
      }
    }
    return payload -> {
      Record before = decoder.decode(payload);
      GenericRecord after = GenericRecord.create(to);
      for (int i = 0; i < sources.length; i++) {
        if (sources[i] >= 0) {
          after.set(i, promote(before.get(sources[i]), columns.get(i).type()));
        }
      }
      return RowCodec.encode(after, to);
    };
  }

  private static void checkPromotion(Type before, Types.NestedField column) {
    Type after = column.type();
    boolean allowed = before.equals(after)
        || after.isPrimitiveType() && TypeUtil.isPromotionAllowed(before, after.asPrimitiveType());
    if (!allowed) {
      throw new IllegalStateException("Cannot read rows of column " + column.name() + " written as "
          + before + " as " + after + ": not a type promotion");
    }
  }

  private static Object promote(Object value, Type to) {
    if (value == null) {
      return null;
    }
    return switch (to.typeId()) {
      case LONG -> value instanceof Integer small ? Long.valueOf(small) : value;
      case DOUBLE -> value instanceof Float small ? Double.valueOf(small) : value;
      default -> value;
    };
  }
}
