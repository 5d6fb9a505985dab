package io.verglas.maintenance.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.maintenance.job.MaintenanceConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceOutput;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The reader's position against a real feed server, through events of unknown types. */
class FeedSourceReaderTest {
  @RegisterExtension final FeedServer feed = new FeedServer();

  @Test
  void movesPastEventsOfUnknownTypesAndSignalsTheRest() throws Exception {
    feed.commit("ns.a", 1);
    feed.futureEvent(2);
    feed.futureEvent(3);
    FeedSourceReader reader = new FeedSourceReader(MaintenanceConfig.builder()
        .catalogProperties(Map.of("type", "jdbc")).feedUri(feed.uri())
        .pollInterval(Duration.ofMillis(1)).sweepInterval(Duration.ZERO).build());
    Signals signals = new Signals();
    try {
      reader.start();
      reader.addSplits(List.of(new FeedSplit(1)));

      pollFor(reader, signals, 50);
      assertThat(signals.tables).containsExactly("ns.a");
      assertThat(reader.snapshotState(1)).containsExactly(new FeedSplit(4));

      // A known event after the unknown ones arrives in order, from the moved position.
      feed.commit("ns.b", 4);
      pollFor(reader, signals, 50);
      assertThat(signals.tables).containsExactly("ns.a", "ns.b");
      assertThat(reader.snapshotState(2)).containsExactly(new FeedSplit(5));
    } finally {
      reader.close();
    }
  }

  /** Polls {@code rounds} times, a poll interval apart, so that every page gets read. */
  private static void pollFor(FeedSourceReader reader, Signals signals, int rounds)
      throws Exception {
    for (int i = 0; i < rounds; i++) {
      reader.pollNext(signals);
      Thread.sleep(2);
    }
  }

  private static final class Signals implements ReaderOutput<TableSignal> {
    final List<String> tables = new ArrayList<>();

    @Override
    public void collect(TableSignal signal) {
      tables.add(signal.table());
    }

    @Override
    public void collect(TableSignal signal, long timestamp) {
      collect(signal);
    }

    @Override
    public void emitWatermark(Watermark watermark) {}

    @Override
    public void markIdle() {}

    @Override
    public void markActive() {}

    @Override
    public SourceOutput<TableSignal> createOutputForSplit(String splitId) {
      return this;
    }

    @Override
    public void releaseOutputForSplit(String splitId) {}
  }
}
