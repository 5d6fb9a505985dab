package io.verglas.materializer.keyindex;

import java.util.stream.Stream;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.array.BytePrimitiveArraySerializer;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;

/**
 * The key index's pages in the writer's keyed state backend (RocksDB in a job): one value state,
 * each read or write under its page's state key and key group, set explicitly
 * ({@link KeyedStateBackend#setCurrentKeyAndKeyGroup}). The key group is what a checkpoint
 * partitions the state by, so a page moves with the keys it indexes when the job is rescaled.
 */
public final class KeyedIndexPageStore implements IndexPageStore {
  /** The state holding the pages: its values are {@link IndexPageCodec} or {@link GroupMeta}. */
  static final String STATE_NAME = "key-index-pages";

  private final KeyedStateBackend<String> backend;
  private final ValueState<byte[]> pages;

  public KeyedIndexPageStore(KeyedStateBackend<String> backend) throws Exception {
    this.backend = backend;
    this.pages = backend.getPartitionedState(VoidNamespace.INSTANCE,
        VoidNamespaceSerializer.INSTANCE, descriptor());
  }

  static ValueStateDescriptor<byte[]> descriptor() {
    return new ValueStateDescriptor<>(STATE_NAME, BytePrimitiveArraySerializer.INSTANCE);
  }

  @Override
  public byte[] get(int keyGroup, String key) throws Exception {
    backend.setCurrentKeyAndKeyGroup(key, keyGroup);
    return pages.value();
  }

  @Override
  public void put(int keyGroup, String key, byte[] value) throws Exception {
    backend.setCurrentKeyAndKeyGroup(key, keyGroup);
    pages.update(value);
  }

  @Override
  public void remove(int keyGroup, String key) throws Exception {
    backend.setCurrentKeyAndKeyGroup(key, keyGroup);
    pages.clear();
  }

  @Override
  public Stream<String> keys() {
    return backend.getKeys(STATE_NAME, VoidNamespace.INSTANCE);
  }
}
