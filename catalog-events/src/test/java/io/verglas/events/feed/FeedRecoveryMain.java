package io.verglas.events.feed;

import java.nio.file.Path;

/**
 * Recovers a feed file in a JVM of its own, so a test can give it a small heap: prints
 * {@code RECOVERED <lastSequence> <windowBytes> <skippedLines>}. Arguments: the file, then the
 * bounds (retained events, retained bytes, max event bytes).
 */
public final class FeedRecoveryMain {
  private FeedRecoveryMain() {}

  public static void main(String[] args) {
    FeedBounds bounds = new FeedBounds(Integer.parseInt(args[1]), Long.parseLong(args[2]),
        Integer.parseInt(args[3]));
    try (ChangeFeed feed = new ChangeFeed(Path.of(args[0]), bounds)) {
      System.out.println("RECOVERED " + feed.lastSequence() + " " + feed.windowBytes() + " "
          + feed.skippedLines());
    }
  }
}
