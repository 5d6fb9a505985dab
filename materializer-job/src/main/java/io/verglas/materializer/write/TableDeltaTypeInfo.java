package io.verglas.materializer.write;

import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.io.SimpleVersionedSerializerTypeSerializerProxy;

/** Flink type information for {@link TableDelta}: its own versioned bytes, never Kryo. */
public final class TableDeltaTypeInfo extends TypeInformation<TableDelta> {
  private static final long serialVersionUID = 1L;
  public static final TableDeltaTypeInfo INSTANCE = new TableDeltaTypeInfo();

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
  public Class<TableDelta> getTypeClass() {
    return TableDelta.class;
  }

  @Override
  public boolean isKeyType() {
    return false;
  }

  @Override
  public TypeSerializer<TableDelta> createSerializer(SerializerConfig config) {
    return new SimpleVersionedSerializerTypeSerializerProxy<>(() -> TableDeltaSerializer.INSTANCE);
  }

  @Override
  public String toString() {
    return "TableDelta";
  }

  @Override
  public boolean equals(Object obj) {
    return obj instanceof TableDeltaTypeInfo;
  }

  @Override
  public int hashCode() {
    return TableDeltaTypeInfo.class.hashCode();
  }

  @Override
  public boolean canEqual(Object obj) {
    return obj instanceof TableDeltaTypeInfo;
  }
}
