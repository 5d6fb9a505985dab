package io.verglas.bench.scale;

import io.verglas.protocol.PutAck;
import io.verglas.materializer.progress.WalMark;
import io.verglas.materializer.progress.WalSummary;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.catalog.Catalog;

/**
 * Ack → visible of the pushes of one run: per acknowledged batch, the time from its
 * acknowledgement to the commit of the first snapshot of its table whose WAL marks cover its
 * segment (the snapshot's own timestamp, as the materialize benchmark measures). Read after the
 * push phase, one table load per active table.
 */
final class Freshness {
  private final List<Sent> sent = new ArrayList<>();

  /** A batch pushed to active table {@code table}, acknowledged at {@code ackMillis}. */
  record Sent(int table, PutAck ack, long ackMillis) {}

  synchronized void add(Sent batch) {
    sent.add(batch);
  }

  synchronized int size() {
    return sent.size();
  }

  /** True when every batch sent to {@code index} is covered by the table's current snapshot. */
  synchronized boolean covered(Catalog catalog, int index) {
    // the newest snapshot with marks: the current one may be a compaction's, which has none
    Map<String, WalMark> marks = WalSummary.committed(catalog.loadTable(ScaleTables.identifier(index)));
    return sent.stream().filter(s -> s.table() == index).allMatch(s -> covers(marks, s.ack()));
  }

  /** Milliseconds from ack to visible of every batch, sorted. */
  synchronized double[] millis(Catalog catalog, int active) {
    double[] out = new double[sent.size()];
    int n = 0;
    for (int index = 0; index < active; index++) {
      int table = index;
      List<Sent> batches = sent.stream().filter(s -> s.table() == table).toList();
      if (batches.isEmpty()) {
        continue;
      }
      List<Snapshot> snapshots = new ArrayList<>();
      catalog.loadTable(ScaleTables.identifier(index)).snapshots().forEach(snapshots::add);
      snapshots.sort(Comparator.comparingLong(Snapshot::sequenceNumber));
      for (Sent batch : batches) {
        Snapshot first = snapshots.stream().filter(s -> covers(s, batch.ack())).findFirst()
            .orElseThrow(() -> new IllegalStateException("Cannot measure freshness: no snapshot of "
                + ScaleTables.name(table) + " covers segment " + batch.ack().sequence()));
        out[n++] = Math.max(0, first.timestampMillis() - batch.ackMillis());
      }
    }
    double[] measured = Arrays.copyOf(out, n);
    Arrays.sort(measured);
    return measured;
  }

  private static boolean covers(Snapshot snapshot, PutAck ack) {
    return covers(WalSummary.parse(snapshot.summary()), ack);
  }

  private static boolean covers(Map<String, WalMark> marks, PutAck ack) {
    WalMark mark = marks.get(ack.stream());
    return mark != null && ack.sequence() <= mark.fullThrough();
  }

  /** The {@code p} quantile of sorted values (nearest rank). */
  static double quantile(double[] sorted, double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int rank = (int) Math.ceil(p * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank))];
  }
}
