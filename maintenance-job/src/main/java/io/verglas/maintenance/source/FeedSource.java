package io.verglas.maintenance.source;

import io.verglas.maintenance.job.MaintenanceConfig;
import java.util.List;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A FLIP-27 source of {@link TableSignal}s: commits from the change feed (resumable from the
 * checkpointed sequence) and a slow sweep over every table. One split, so parallelism 1.
 */
public final class FeedSource implements Source<TableSignal, FeedSplit, List<FeedSplit>> {
  private static final long serialVersionUID = 1L;

  private final MaintenanceConfig config;

  public FeedSource(MaintenanceConfig config) {
    this.config = config;
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.CONTINUOUS_UNBOUNDED;
  }

  @Override
  public SourceReader<TableSignal, FeedSplit> createReader(SourceReaderContext context) {
    return new FeedSourceReader(config);
  }

  @Override
  public SplitEnumerator<FeedSplit, List<FeedSplit>> createEnumerator(
      SplitEnumeratorContext<FeedSplit> context) {
    return new FeedEnumerator(context, List.of(new FeedSplit(config.feedFrom())));
  }

  @Override
  public SplitEnumerator<FeedSplit, List<FeedSplit>> restoreEnumerator(
      SplitEnumeratorContext<FeedSplit> context, List<FeedSplit> checkpoint) {
    return new FeedEnumerator(context, checkpoint);
  }

  @Override
  public SimpleVersionedSerializer<FeedSplit> getSplitSerializer() {
    return FeedSplitSerializer.INSTANCE;
  }

  @Override
  public SimpleVersionedSerializer<List<FeedSplit>> getEnumeratorCheckpointSerializer() {
    return FeedSplitSerializer.State.INSTANCE;
  }
}
