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
  void aStreamsSegmentsInFlightAreHeldByOneReaderInOrder() {
    put("s1", 0);
    put("s1", 1);
    put("s2", 0);
    WalEnumerator enumerator = started(WalEnumeratorState.empty());

    // Reader 0 asks first: it reads ahead in s1 but leaves s2 to the reader that has nothing.
    enumerator.handleSplitRequest(0, null);
    enumerator.handleSplitRequest(1, null);
    assertThat(keys(0)).containsExactly(key("s1", 0), key("s1", 1));
    assertThat(keys(1)).containsExactly(key("s2", 0));

    // Reader 1 is done with s2 and asks again: s1's next segment goes to reader 0, which holds
    // s1's earlier ones, never to reader 1.
    enumerator.handleSourceEvent(1, new ReaderEvents.SegmentFinished(key("s2", 0)));
    enumerator.handleSplitRequest(1, null);
    put("s1", 2);
    context.runPeriodic();
    assertThat(keys(0)).containsExactly(key("s1", 0), key("s1", 1), key("s1", 2));
    assertThat(keys(1)).containsExactly(key("s2", 0));

    // Once reader 0 holds nothing of s1, s1 may move.
    for (long sequence = 0; sequence < 3; sequence++) {
      enumerator.handleSourceEvent(0, new ReaderEvents.SegmentFinished(key("s1", sequence)));
    }
    put("s1", 3);
    context.runPeriodic();
    assertThat(context.assigned(0).size() + context.assigned(1).size()).isEqualTo(5);
    assertThat(keys(0).contains(key("s1", 3)) || keys(1).contains(key("s1", 3))).isTrue();
  }

  @Test
  void aReaderReadsAheadUpToItsBoundAndGetsMoreAsItFinishes() {
    for (long sequence = 0; sequence < 5; sequence++) {
      put("s1", sequence);
    }
    WalEnumerator enumerator = started(WalEnumeratorState.empty());

    enumerator.handleSplitRequest(0, null);
    assertThat(keys(0)).containsExactly(key("s1", 0), key("s1", 1), key("s1", 2));
    enumerator.handleSplitRequest(1, null);
    assertThat(keys(1)).isEmpty();

    enumerator.handleSourceEvent(0, new ReaderEvents.SegmentFinished(key("s1", 0)));
    enumerator.handleSplitRequest(0, null);
    assertThat(keys(0)).containsExactly(key("s1", 0), key("s1", 1), key("s1", 2),
        key("s1", 3));
  }

  @Test
  void aSingleReaderServesStreamsRoundRobin() {
    TestingEnumeratorContext single = new TestingEnumeratorContext(1);
    single.register(0);
    for (String stream : List.of("s1", "s2", "s3", "s4")) {
      put(stream, 0);
      put(stream, 1);
    }
    WalEnumerator enumerator = new WalEnumerator(single, store, LAYOUT, 1,
        WalEnumeratorState.empty());
    enumerator.start();
    single.runPeriodic();
    enumerator.handleSourceEvent(0, new ReaderEvents.ReaderStarted(List.of()));

    enumerator.handleSplitRequest(0, null);
    assertThat(single.assigned(0)).extracting(WalSplit::key)
        .containsExactly(key("s1", 0), key("s2", 0), key("s3", 0));
    enumerator.handleSourceEvent(0, new ReaderEvents.SegmentFinished(key("s1", 0)));
    enumerator.handleSplitRequest(0, null);
    assertThat(single.assigned(0)).extracting(WalSplit::key).last().isEqualTo(key("s4", 0));
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
    for (long sequence = 0; sequence <= WalEnumerator.SEGMENTS_PER_READER; sequence++) {
      put("s1", sequence);
    }
    long last = WalEnumerator.SEGMENTS_PER_READER;
    WalEnumerator enumerator = started(WalEnumeratorState.empty());
    enumerator.handleSplitRequest(0, null);
    WalEnumeratorState state = enumerator.snapshotState(1);
    assertThat(state.discoveredUpTo()).containsEntry("s1", key("s1", last));
    assertThat(state.unassigned()).extracting(WalSplit::key).containsExactly(key("s1", last));

    put("s1", last + 1);
    TestingEnumeratorContext restoredContext = new TestingEnumeratorContext(1);
    restoredContext.register(0);
    WalEnumerator restored = new WalEnumerator(restoredContext, store, LAYOUT, 1, state);
    restored.start();
    restoredContext.runPeriodic();
    restoredContext.runPeriodic(); // overlapping discoveries add nothing twice
    restored.handleSourceEvent(0, new ReaderEvents.ReaderStarted(List.of()));
    assertThat(restored.snapshotState(2).unassigned()).extracting(WalSplit::key)
        .containsExactly(key("s1", last), key("s1", last + 1));
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
