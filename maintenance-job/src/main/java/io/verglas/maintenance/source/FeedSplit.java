package io.verglas.maintenance.source;

import org.apache.flink.api.connector.source.SourceSplit;

/** The one split of the feed source: where to resume reading the change feed. */
public record FeedSplit(long nextSequence) implements SourceSplit {
  public static final String ID = "change-feed";

  public FeedSplit {
    if (nextSequence < 1) {
      throw new IllegalArgumentException("Invalid feed sequence: " + nextSequence + " (must be >= 1)");
    }
  }

  @Override
  public String splitId() {
    return ID;
  }
}
