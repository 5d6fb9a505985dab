package io.verglas.queue;

/**
 * A message as a consumer receives it: its position in the log, the message and when its batch
 * was published (epoch millis, the publisher's hybrid logical clock). A message may be delivered
 * more than once (at-least-once): consumers use the position or the key to be idempotent.
 */
public record Delivery(QueuePosition position, QueueMessage message, long publishedAtMillis) {}
