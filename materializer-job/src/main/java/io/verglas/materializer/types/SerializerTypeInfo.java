package io.verglas.materializer.types;

import java.util.Objects;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.util.function.SerializableSupplier;

/**
 * Flink type information for a type that brings its own serializer: what the job's records use
 * instead of Kryo or Flink's reflective POJO serializer.
 */
public final class SerializerTypeInfo<T> extends TypeInformation<T> {
  private static final long serialVersionUID = 1L;

  private final Class<T> type;
  private final SerializableSupplier<TypeSerializer<T>> serializer;

  public SerializerTypeInfo(Class<T> type, SerializableSupplier<TypeSerializer<T>> serializer) {
    this.type = Objects.requireNonNull(type, "type");
    this.serializer = Objects.requireNonNull(serializer, "serializer");
  }

  @Override
  public boolean isBasicType() {
    return false;
  }

  @Override
  public boolean isTupleType() {
    return false;
  }

  @Override
  public int getArity() {
    return 1;
  }

  @Override
  public int getTotalFields() {
    return 1;
  }

  @Override
  public Class<T> getTypeClass() {
    return type;
  }

  @Override
  public boolean isKeyType() {
    return false;
  }

  @Override
  public TypeSerializer<T> createSerializer(SerializerConfig config) {
    return serializer.get();
  }

  @Override
  public String toString() {
    return type.getSimpleName();
  }

  @Override
  public boolean equals(Object obj) {
    return obj instanceof SerializerTypeInfo<?> other && other.type.equals(type);
  }

  @Override
  public int hashCode() {
    return type.hashCode();
  }

  @Override
  public boolean canEqual(Object obj) {
    return obj instanceof SerializerTypeInfo;
  }
}
