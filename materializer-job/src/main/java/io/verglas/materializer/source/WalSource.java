package io.verglas.materializer.source;

import io.verglas.materializer.MaterializerConfig;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A FLIP-27 source of the rows of every WAL segment under the configured prefix, for all tables,
 * in per-stream log order (see {@link WalEnumerator}). Unbounded: it keeps discovering new
 * segments.
 */
public final class WalSource implements Source<WalRow, WalSplit, WalEnumeratorState> {
  private static final long serialVersionUID = 1L;

  private final MaterializerConfig config;

  public WalSource(MaterializerConfig config) {
    this.config = config;
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.CONTINUOUS_UNBOUNDED;
  }

  @Override
  public SourceReader<WalRow, WalSplit> createReader(SourceReaderContext readerContext) {
    return new WalSourceReader(readerContext, config);
  }

  @Override
  public SplitEnumerator<WalSplit, WalEnumeratorState> createEnumerator(
      SplitEnumeratorContext<WalSplit> enumContext) {
    return restoreEnumerator(enumContext, WalEnumeratorState.empty());
  }

  @Override
  public SplitEnumerator<WalSplit, WalEnumeratorState> restoreEnumerator(
      SplitEnumeratorContext<WalSplit> enumContext, WalEnumeratorState checkpoint) {
    return new WalEnumerator(enumContext, config.newWalStore(), config.walLayout(),
        config.discoveryInterval().toMillis(), checkpoint);
  }

  @Override
  public SimpleVersionedSerializer<WalSplit> getSplitSerializer() {
    return WalSplitSerializer.INSTANCE;
  }

  @Override
  public SimpleVersionedSerializer<WalEnumeratorState> getEnumeratorCheckpointSerializer() {
    return WalEnumeratorStateSerializer.INSTANCE;
  }
}
