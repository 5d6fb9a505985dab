package io.verglas.materializer.source;

import java.util.List;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * What readers tell the enumerator so it can keep each stream's segments in order: which
 * segments a reader holds when it starts (restored from a checkpoint), and when it has emitted
 * every row of one.
 */
final class ReaderEvents {
  private ReaderEvents() {}

  /** Sent once by every reader on start, with the segment keys restored into it. */
  record ReaderStarted(List<String> heldKeys) implements SourceEvent {
    private static final long serialVersionUID = 1L;

    ReaderStarted {
      heldKeys = List.copyOf(heldKeys);
    }
  }

  /** Sent when a reader has emitted (or skipped) every row of a segment. */
  record SegmentFinished(String key) implements SourceEvent {
    private static final long serialVersionUID = 1L;
  }
}
