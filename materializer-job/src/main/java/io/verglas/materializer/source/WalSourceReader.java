package io.verglas.materializer.source;

import io.verglas.materializer.MaterializerConfig;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.connector.base.source.reader.SingleThreadMultiplexSourceReaderBase;

/**
 * The source reader: one fetcher thread reads segments ({@link WalSplitReader}); this class keeps
 * the enumerator informed of which segments it holds and asks for the next when one is done.
 */
final class WalSourceReader
    extends SingleThreadMultiplexSourceReaderBase<WalRow, WalRow, WalSplit, WalSplitState> {
  private final Set<String> held = new LinkedHashSet<>();

  WalSourceReader(SourceReaderContext context, MaterializerConfig config) {
    super(() -> WalSplitReader.create(config), new WalRecordEmitter(), context.getConfiguration(),
        context);
  }

  @Override
  public void start() {
    super.start();
    // Restored splits were added before start(): report them so the enumerator keeps order.
    context.sendSourceEventToCoordinator(new ReaderEvents.ReaderStarted(List.copyOf(held)));
    if (getNumberOfCurrentlyAssignedSplits() == 0) {
      context.sendSplitRequest();
    }
  }

  @Override
  public void addSplits(List<WalSplit> splits) {
    splits.forEach(split -> held.add(split.splitId()));
    super.addSplits(splits);
  }

  @Override
  protected void onSplitFinished(Map<String, WalSplitState> finishedSplitIds) {
    for (String key : finishedSplitIds.keySet()) {
      held.remove(key);
      context.sendSourceEventToCoordinator(new ReaderEvents.SegmentFinished(key));
    }
    context.sendSplitRequest();
  }

  @Override
  protected WalSplitState initializedState(WalSplit split) {
    return new WalSplitState(split);
  }

  @Override
  protected WalSplit toSplitType(String splitId, WalSplitState state) {
    return state.toSplit();
  }
}
