package io.verglas.materializer.types;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * A serializer of mutable records of variable length that always builds new objects (never
 * fills a reused one). Instances of one subclass differ only in per-thread read caches, so they
 * are all equal; subclasses give {@link #duplicate} a fresh instance.
 */
public abstract class NonReusingSerializer<T> extends TypeSerializer<T> {
  private static final long serialVersionUID = 1L;

  @Override
  public final boolean isImmutableType() {
    return false;
  }

  @Override
  public final T copy(T from, T reuse) {
    return copy(from);
  }

  @Override
  public final int getLength() {
    return -1;
  }

  @Override
  public final T deserialize(T reuse, DataInputView in) throws IOException {
    return deserialize(in);
  }

  @Override
  public final void copy(DataInputView source, DataOutputView target) throws IOException {
    serialize(deserialize(source), target);
  }

  @Override
  public final boolean equals(Object other) {
    return other != null && other.getClass() == getClass();
  }

  @Override
  public final int hashCode() {
    return getClass().hashCode();
  }
}
