package io.verglas.ingest.metrics;

import io.verglas.ingest.validation.RejectReason;
import java.util.Locale;

/**
 * Renders {@link IngestMetrics.Snapshot} in the Prometheus text exposition format (0.0.4).
 * Every metric is prefixed {@code verglas_ingest_}; counters end in {@code _total}; latencies
 * are histograms in seconds.
 */
public final class PrometheusText {
  public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
  private static final String PREFIX = "verglas_ingest_";

  private PrometheusText() {}

  public static String render(IngestMetrics.Snapshot s) {
    StringBuilder out = new StringBuilder(4096);
    counter(out, "batches_total", "Batches accepted after validation.", s.batchesAccepted());
    counter(out, "rows_total", "Rows accepted after validation.", s.rowsAccepted());
    counter(out, "bytes_total", "Arrow buffer bytes accepted after validation.", s.bytesAccepted());
    counter(out, "acknowledged_batches_total", "Batches acknowledged as durable.",
        s.batchesAcknowledged());
    counter(out, "acknowledged_rows_total", "Rows acknowledged as durable.", s.rowsAcknowledged());
    counter(out, "failed_batches_total", "Accepted batches that could not be made durable.",
        s.batchesFailed());
    counter(out, "duplicate_batches_total", "Retried batches answered from their idempotency key.",
        s.duplicatesAbsorbed());
    counter(out, "segments_total", "WAL segments written.", s.segmentsWritten());
    counter(out, "wal_bytes_total", "WAL segment bytes written.", s.walBytesWritten());
    counter(out, "put_retries_total", "Segment PUT attempts repeated after a failure.",
        s.putRetries());
    counter(out, "put_failures_total", "Segment PUTs given up after the last attempt.",
        s.putFailures());
    header(out, "rejects_total", "counter", "Batches and calls refused, by reason.");
    for (RejectReason reason : RejectReason.values()) {
      out.append(PREFIX).append("rejects_total{reason=\"").append(reason.label()).append("\"} ")
          .append(s.rejects().getOrDefault(reason, 0L)).append('\n');
    }
    histogram(out, "flush_latency_seconds", "Segment seal to durable PUT.", s.flushLatency());
    histogram(out, "ack_latency_seconds", "Batch accepted to acknowledged.", s.ackLatency());
    header(out, "buffered_bytes", "gauge", "Accepted batch bytes not yet durable.");
    out.append(PREFIX).append("buffered_bytes ").append(s.bufferedBytes()).append('\n');
    header(out, "puts_in_progress", "gauge", "DoPut calls admitted and not yet ended.");
    out.append(PREFIX).append("puts_in_progress ").append(s.putsInProgress()).append('\n');
    return out.toString();
  }

  private static void counter(StringBuilder out, String name, String help, long value) {
    header(out, name, "counter", help);
    out.append(PREFIX).append(name).append(' ').append(value).append('\n');
  }

  private static void histogram(StringBuilder out, String name, String help,
      LatencyHistogram.Snapshot h) {
    header(out, name, "histogram", help);
    long cumulative = 0;
    long[] counts = h.counts();
    for (int i = 0; i < counts.length; i++) {
      cumulative += counts[i];
      String le = i < LatencyHistogram.BOUNDS_MS.length
          ? String.format(Locale.ROOT, "%s", LatencyHistogram.BOUNDS_MS[i] / 1000.0) : "+Inf";
      out.append(PREFIX).append(name).append("_bucket{le=\"").append(le).append("\"} ")
          .append(cumulative).append('\n');
    }
    out.append(PREFIX).append(name).append("_sum ")
        .append(String.format(Locale.ROOT, "%.6f", h.sumNanos() / 1e9)).append('\n');
    out.append(PREFIX).append(name).append("_count ").append(cumulative).append('\n');
  }

  private static void header(StringBuilder out, String name, String type, String help) {
    out.append("# HELP ").append(PREFIX).append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(PREFIX).append(name).append(' ').append(type).append('\n');
  }
}
