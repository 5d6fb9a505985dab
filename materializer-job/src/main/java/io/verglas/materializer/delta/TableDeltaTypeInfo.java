package io.verglas.materializer.delta;

import io.verglas.materializer.types.SerializerTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.core.io.SimpleVersionedSerializerTypeSerializerProxy;

/** Flink type information for {@link TableDelta}: its own versioned bytes, never Kryo. */
public final class TableDeltaTypeInfo {
  public static final TypeInformation<TableDelta> INSTANCE = new SerializerTypeInfo<>(
      TableDelta.class,
      () -> new SimpleVersionedSerializerTypeSerializerProxy<>(() -> TableDeltaSerializer.INSTANCE));

  private TableDeltaTypeInfo() {}
}
