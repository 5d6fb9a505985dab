package io.verglas.vector;

import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The indexed column of a table, from its properties: {@value #COLUMN} names a column of type
 * {@code fixed[4 * dimension]} (little-endian IEEE floats) or {@code list<float>},
 * {@value #DIMENSION} gives the dimension and {@value #METRIC} the metric (default l2).
 */
public record VectorColumn(String name, int fieldId, int dimension, VectorMetric metric,
    boolean fixed) {
  public static final String COLUMN = "verglas.vector.column";
  public static final String DIMENSION = "verglas.vector.dimension";
  public static final String METRIC = "verglas.vector.metric";
  public static final String METRIC_DEFAULT = "l2";

  /** Whether the table declares a vector column at all. */
  public static boolean isDeclared(Table table) {
    return table.properties().containsKey(COLUMN);
  }

  public static VectorColumn of(Table table) {
    return of(table.schema(), table.properties());
  }

  public static VectorColumn of(Schema schema, Map<String, String> properties) {
    String name = properties.get(COLUMN);
    if (name == null) {
      throw new IllegalArgumentException("Cannot find vector column: table property " + COLUMN
          + " is not set");
    }
    Types.NestedField field = schema.findField(name);
    if (field == null) {
      throw new IllegalArgumentException("Cannot find vector column: no column " + name);
    }
    int dimension = dimension(properties.get(DIMENSION));
    VectorMetric metric = VectorMetric.fromId(properties.getOrDefault(METRIC, METRIC_DEFAULT));
    return new VectorColumn(name, field.fieldId(), dimension, metric, isFixed(field, dimension));
  }

  private static int dimension(String value) {
    try {
      int dimension = Integer.parseInt(String.valueOf(value));
      if (dimension < 1) {
        throw new NumberFormatException();
      }
      return dimension;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("Cannot read vector dimension: table property "
          + DIMENSION + " is " + value + " (expected a positive integer)");
    }
  }

  private static boolean isFixed(Types.NestedField field, int dimension) {
    Type type = field.type();
    if (type instanceof Types.FixedType fixed) {
      if (fixed.length() != 4 * dimension) {
        throw new IllegalArgumentException("Cannot use vector column " + field.name() + ": "
            + type + " holds " + fixed.length() / 4.0 + " floats, dimension is " + dimension);
      }
      return true;
    }
    if (type instanceof Types.ListType list && list.elementType().equals(Types.FloatType.get())) {
      return false;
    }
    throw new IllegalArgumentException("Cannot use vector column " + field.name() + ": type "
        + type + " (expected fixed[" + 4 * dimension + "] or list<float>)");
  }
}
