package io.verglas.arrow;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The mapping between Iceberg column types and Arrow types that clients send: primitives, lists
 * of primitives ({@code list<float>} for embeddings) and structs of primitives; maps and deeper
 * nesting are not supported yet.
 *
 * <p>{@link #toArrow} gives the canonical Arrow type of each column (what {@code GetSchema}
 * returns; a list is an Arrow List whose child is the element). {@link #incompatibility} decides
 * which Arrow types a column accepts: the canonical one, safe widenings (int→long, float→double,
 * any smaller integer, any decimal that fits), any timestamp unit with the right zone-ness, and
 * large variants of strings and binaries; a list column takes an Arrow List, LargeList or
 * FixedSizeList whose element its element type accepts, a struct column an Arrow Struct whose
 * children name its fields (an optional field may be absent) and fit their types.
 */
public final class ArrowSchemas {
  public static final String OP_COLUMN = "_op";
  private static final String UTC = "UTC";

  private ArrowSchemas() {}

  public static org.apache.arrow.vector.types.pojo.Schema toArrow(Schema schema) {
    List<Field> fields = new ArrayList<>();
    for (Types.NestedField column : schema.columns()) {
      fields.add(toArrow(column));
    }
    return new org.apache.arrow.vector.types.pojo.Schema(fields);
  }

  /**
   * The canonical Arrow field of a column: its type, nullability and, for a list or a struct,
   * its element or fields as children.
   */
  public static Field toArrow(Types.NestedField column) {
    List<Field> children = null;
    if (column.type().isNestedType()) {
      children = column.type().asNestedType().fields().stream().map(ArrowSchemas::toArrow)
          .toList();
    }
    return new Field(column.name(),
        new FieldType(column.isOptional(), toArrow(column.type()), null), children);
  }

  /**
   * The canonical Arrow type of a column type (for a list, {@code List}, for a struct,
   * {@code Struct}; the element or fields are children of the field, see
   * {@link #toArrow(Types.NestedField)}).
   *
   * @throws UnsupportedTypeException for maps, lists and structs of anything but primitives and
   *     other types Verglas cannot ingest yet
   */
  public static ArrowType toArrow(Type type) {
    switch (type.typeId()) {
      case STRUCT:
        for (Types.NestedField field : type.asStructType().fields()) {
          if (!field.type().isPrimitiveType()) {
            throw new UnsupportedTypeException(type);
          }
          toArrow(field.type());
        }
        return ArrowType.Struct.INSTANCE;
      case LIST:
        Type element = type.asListType().elementType();
        if (!element.isPrimitiveType()) {
          throw new UnsupportedTypeException(type);
        }
        toArrow(element);
        return ArrowType.List.INSTANCE;
      case BOOLEAN: return ArrowType.Bool.INSTANCE;
      case INTEGER: return new ArrowType.Int(32, true);
      case LONG: return new ArrowType.Int(64, true);
      case FLOAT: return new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
      case DOUBLE: return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case DATE: return new ArrowType.Date(DateUnit.DAY);
      case TIME: return new ArrowType.Time(TimeUnit.MICROSECOND, 64);
      case TIMESTAMP:
        boolean zoned = ((Types.TimestampType) type).shouldAdjustToUTC();
        return new ArrowType.Timestamp(TimeUnit.MICROSECOND, zoned ? UTC : null);
      case STRING: return ArrowType.Utf8.INSTANCE;
      case UUID: return new ArrowType.FixedSizeBinary(16);
      case FIXED: return new ArrowType.FixedSizeBinary(((Types.FixedType) type).length());
      case BINARY: return ArrowType.Binary.INSTANCE;
      case DECIMAL:
        Types.DecimalType decimal = (Types.DecimalType) type;
        return new ArrowType.Decimal(decimal.precision(), decimal.scale(), 128);
      default:
        throw new UnsupportedTypeException(type);
    }
  }

  /** Throws {@link UnsupportedTypeException} when a schema has a column type Verglas cannot ingest yet. */
  public static void checkSupported(Schema schema) {
    for (Types.NestedField column : schema.columns()) {
      toArrow(column.type());
    }
  }

  /**
   * Why an Arrow field cannot feed an Iceberg column of type {@code type}: as
   * {@link #incompatibility(ArrowType, Type)}, and for a list column the field must be a List,
   * LargeList or FixedSizeList whose element the column's element type accepts.
   */
  public static Optional<String> incompatibility(Field arrow, Type type) {
    if (type.isListType()) {
      return listIncompatibility(arrow, type.asListType());
    }
    if (type.isStructType()) {
      return structIncompatibility(arrow, type.asStructType());
    }
    if (type.isNestedType()) {
      return incompatibility(arrow.getType(), type);
    }
    if (arrow.getType().isComplex()) {
      return Optional.of("expected " + type + " but got nested Arrow " + arrow.getType());
    }
    return incompatibility(arrow.getType(), type);
  }

  private static Optional<String> listIncompatibility(Field arrow, Types.ListType type) {
    ArrowType arrowType = arrow.getType();
    if (!isList(arrow)) {
      return Optional.of("expected " + type + " (an Arrow List, LargeList or FixedSizeList) but"
          + " got Arrow " + arrowType);
    }
    if (!type.elementType().isPrimitiveType()) {
      return Optional.of("column type " + type + " is not supported for ingest yet");
    }
    Field element = arrow.getChildren().get(0);
    if (element.getDictionary() != null) {
      return Optional.of("list elements must not be dictionary-encoded; send plain "
          + type.elementType() + " values");
    }
    return incompatibility(element, type.elementType())
        .map(problem -> "list element: " + problem);
  }

  private static Optional<String> structIncompatibility(Field arrow, Types.StructType type) {
    if (!(arrow.getType() instanceof ArrowType.Struct)) {
      return Optional.of("expected " + type + " (an Arrow Struct) but got Arrow " + arrow.getType());
    }
    if (type.fields().stream().anyMatch(field -> !field.type().isPrimitiveType())) {
      return Optional.of("column type " + type + " is not supported for ingest yet");
    }
    for (Field child : arrow.getChildren()) {
      Types.NestedField field = type.field(child.getName());
      Optional<String> problem = field == null ? Optional.of("unknown field (the struct has "
          + type.fields().stream().map(Types.NestedField::name).toList() + ")")
          : child.getDictionary() != null ? Optional.of("must not be dictionary-encoded")
          : incompatibility(child, field.type());
      if (problem.isPresent()) {
        return Optional.of("struct field '" + child.getName() + "': " + problem.get());
      }
    }
    for (Types.NestedField field : type.fields()) {
      if (field.isRequired() && arrow.getChildren().stream()
          .noneMatch(child -> child.getName().equals(field.name()))) {
        return Optional.of("struct field '" + field.name() + "': required field is missing");
      }
    }
    return Optional.empty();
  }

  /** Whether a field is an Arrow List, LargeList or FixedSizeList (with its one child). */
  public static boolean isList(Field arrow) {
    ArrowType type = arrow.getType();
    return (type instanceof ArrowType.List || type instanceof ArrowType.LargeList
        || type instanceof ArrowType.FixedSizeList) && arrow.getChildren().size() == 1;
  }

  /** Why an Arrow column of type {@code arrow} cannot feed an Iceberg column of type {@code type}. */
  public static Optional<String> incompatibility(ArrowType arrow, Type type) {
    boolean ok;
    switch (type.typeId()) {
      case BOOLEAN: ok = arrow instanceof ArrowType.Bool; break;
      case INTEGER: ok = isSignedInt(arrow, 32); break;
      case LONG: ok = isSignedInt(arrow, 64); break;
      case FLOAT: ok = isFloat(arrow, FloatingPointPrecision.SINGLE); break;
      case DOUBLE: ok = isFloat(arrow, FloatingPointPrecision.SINGLE)
          || isFloat(arrow, FloatingPointPrecision.DOUBLE); break;
      case DATE: ok = arrow instanceof ArrowType.Date; break;
      case TIME: ok = arrow instanceof ArrowType.Time; break;
      case TIMESTAMP: return timestampIncompatibility(arrow, (Types.TimestampType) type);
      case STRING: ok = arrow instanceof ArrowType.Utf8 || arrow instanceof ArrowType.LargeUtf8; break;
      case BINARY: ok = arrow instanceof ArrowType.Binary || arrow instanceof ArrowType.LargeBinary
          || arrow instanceof ArrowType.FixedSizeBinary; break;
      case UUID: ok = arrow instanceof ArrowType.FixedSizeBinary fixed && fixed.getByteWidth() == 16; break;
      case FIXED: ok = arrow instanceof ArrowType.FixedSizeBinary fixed
          && fixed.getByteWidth() == ((Types.FixedType) type).length(); break;
      case DECIMAL: return decimalIncompatibility(arrow, (Types.DecimalType) type);
      default: return Optional.of("column type " + type + " is not supported for ingest yet");
    }
    return ok ? Optional.empty() : Optional.of("expected " + type + " but got Arrow " + arrow);
  }

  private static Optional<String> timestampIncompatibility(ArrowType arrow, Types.TimestampType type) {
    if (!(arrow instanceof ArrowType.Timestamp ts)) {
      return Optional.of("expected " + type + " but got Arrow " + arrow);
    }
    boolean zoned = ts.getTimezone() != null;
    if (zoned != type.shouldAdjustToUTC()) {
      return Optional.of("expected " + type + (type.shouldAdjustToUTC()
          ? " (a timestamp with a time zone)" : " (a timestamp without a time zone)")
          + " but got Arrow " + arrow);
    }
    return Optional.empty();
  }

  private static Optional<String> decimalIncompatibility(ArrowType arrow, Types.DecimalType type) {
    if (!(arrow instanceof ArrowType.Decimal d)) {
      return Optional.of("expected " + type + " but got Arrow " + arrow);
    }
    if (d.getScale() != type.scale() || d.getPrecision() > type.precision()) {
      return Optional.of("expected " + type + " but got decimal(" + d.getPrecision() + ", "
          + d.getScale() + "): scale must match and precision must not grow");
    }
    return Optional.empty();
  }

  private static boolean isSignedInt(ArrowType arrow, int maxWidth) {
    return arrow instanceof ArrowType.Int i && i.getIsSigned() && i.getBitWidth() <= maxWidth;
  }

  private static boolean isFloat(ArrowType arrow, FloatingPointPrecision precision) {
    return arrow instanceof ArrowType.FloatingPoint f && f.getPrecision() == precision;
  }
}
