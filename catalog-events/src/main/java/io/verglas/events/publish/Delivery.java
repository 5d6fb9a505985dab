package io.verglas.events.publish;

import java.util.Objects;

/** Sends one outbox entry to its destination (the change feed) and says how that went. */
@FunctionalInterface
public interface Delivery {
  /** One attempt; never throws for a refusal or a network failure, it answers {@link Result}. */
  Result deliver(OutboxEntry entry) throws InterruptedException;

  /** What an attempt did. */
  enum Kind {
    /** The destination has the entry (or had it already). */
    DELIVERED,
    /** Not delivered this time (unreachable, slow, overloaded, credential refused): try again. */
    RETRY,
    /** The destination will never take this entry (it is malformed or too large): skip it. */
    REJECTED
  }

  /** An attempt's outcome; {@code reason} says why it was not delivered, for the log. */
  record Result(Kind kind, String reason) {
    private static final Result DELIVERED = new Result(Kind.DELIVERED, "delivered");

    public Result {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(reason, "reason");
    }

    public static Result delivered() {
      return DELIVERED;
    }

    public static Result retry(String reason) {
      return new Result(Kind.RETRY, reason);
    }

    public static Result rejected(String reason) {
      return new Result(Kind.REJECTED, reason);
    }
  }
}
