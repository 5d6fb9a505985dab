package io.verglas.materializer.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.materializer.testing.TestingWalStore;
import io.verglas.wal.WalLayout;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class WalEnumeratorTest {
  static final WalLayout LAYOUT = WalLayout.defaults();
  TestingWalStore store;
  TestingEnumeratorContext context;

  @BeforeEach
  void setUp() {
    store = new TestingWalStore(LAYOUT);
    context = new TestingEnumeratorContext(2);
    context.register(0);
    context.register(1);
  }

  @Test
  void aStreamHasOneSegmentInFlightAndSegmentsGoOutInOrder() {
    put("s1", 0);
    put("s1", 1);
    put("s2", 0);
    WalEnumerator enumerator = started(WalEnumeratorState.empty());

    enumerator.handleSplitRequest(0, null);
    enumerator.handleSplitRequest(1, null);
    assertThat(keys(0)).containsExactly(key("s1", 0));
    assertThat(keys(1)).containsExactly(key("s2", 0));

    // Reader 1 is done with s2 and asks again: s1/1 must wait until reader 0 finishes s1/0.
    enumerator.handleSourceEvent(1, new ReaderEvents.SegmentFinished(key("s2", 0)));
    enumerator.handleSplitRequest(1, null);
    assertThat(keys(1)).containsExactly(key("s2", 0));
    enumerator.handleSourceEvent(0, new ReaderEvents.SegmentFinished(key("s1", 0)));
    assertThat(keys(1)).containsExactly(key("s2", 0), key("s1", 1));
  }

  @Test
  void nothingIsHandedOutUntilEveryReaderReportedWhatItRestored() {
    put("s1", 0);
    put("s1", 1);
    put("s2", 0);
    WalEnumerator enumerator = new WalEnumerator(context, store, LAYOUT, 1,
        new WalEnumeratorState(java.util.Map.of("s1", key("s1", 0)), List.of(
            new WalSplit(key("s1", 1), "s1", 1, 0))));
    enumerator.start();
    context.runPeriodic();
    enumerator.handleSourceEvent(0, new ReaderEvents.ReaderStarted(List.of()));
    enumerator.handleSplitRequest(0, null);
    assertThat(keys(0)).isEmpty();

    // Reader 1 restored s1/0 from its checkpoint: s1 is busy, so reader 0 gets s2/0 only.
    enumerator.handleSourceEvent(1, new ReaderEvents.ReaderStarted(List.of(key("s1", 0))));
    assertThat(keys(0)).containsExactly(key("s2", 0));
    enumerator.handleSourceEvent(1, new ReaderEvents.SegmentFinished(key("s1", 0)));
    enumerator.handleSplitRequest(1, null);
    assertThat(keys(1)).containsExactly(key("s1", 1));
  }

  @Test
  void stateKeepsCursorsAndUnassignedSegments() {
    put("s1", 0);
    put("s1", 1);
    WalEnumerator enumerator = started(WalEnumeratorState.empty());
    enumerator.handleSplitRequest(0, null);
    WalEnumeratorState state = enumerator.snapshotState(1);
    assertThat(state.discoveredUpTo()).containsEntry("s1", key("s1", 1));
    assertThat(state.unassigned()).extracting(WalSplit::key).containsExactly(key("s1", 1));

    put("s1", 2);
    TestingEnumeratorContext restoredContext = new TestingEnumeratorContext(1);
    restoredContext.register(0);
    WalEnumerator restored = new WalEnumerator(restoredContext, store, LAYOUT, 1, state);
    restored.start();
    restoredContext.runPeriodic();
    restoredContext.runPeriodic(); // overlapping discoveries add nothing twice
    restored.handleSourceEvent(0, new ReaderEvents.ReaderStarted(List.of()));
    assertThat(restored.snapshotState(2).unassigned()).extracting(WalSplit::key)
        .containsExactly(key("s1", 1), key("s1", 2));
  }

  @Test
  void splitsOfAFailedReaderComeBack() {
    put("s1", 0);
    WalEnumerator enumerator = started(WalEnumeratorState.empty());
    enumerator.handleSplitRequest(0, null);
    WalSplit split = context.assigned(0).get(0);
    enumerator.addSplitsBack(List.of(split), 0);
    enumerator.addReader(0);
    enumerator.handleSourceEvent(0, new ReaderEvents.ReaderStarted(List.of()));
    enumerator.handleSplitRequest(1, null);
    assertThat(keys(1)).containsExactly(key("s1", 0));
  }

  private WalEnumerator started(WalEnumeratorState state) {
    WalEnumerator enumerator = new WalEnumerator(context, store, LAYOUT, 1, state);
    enumerator.start();
    context.runPeriodic();
    enumerator.handleSourceEvent(0, new ReaderEvents.ReaderStarted(List.of()));
    enumerator.handleSourceEvent(1, new ReaderEvents.ReaderStarted(List.of()));
    return enumerator;
  }

  private void put(String stream, long sequence) {
    store.put(key(stream, sequence), new byte[0]);
  }

  private List<String> keys(int subtask) {
    return context.assigned(subtask).stream().map(WalSplit::key).toList();
  }

  private static String key(String stream, long sequence) {
    return LAYOUT.segmentKey(stream, sequence);
  }
}
