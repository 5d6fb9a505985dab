package io.verglas.events.publish;

import java.util.Objects;

/**
 * One event waiting in a {@link DurableOutbox}: its id (for logs) and its CloudEvent JSON (what
 * is sent). Acknowledge it with {@link DurableOutbox#ack} once the feed accepted it.
 */
public final class OutboxEntry {
  private final String id;
  private final String json;
  private final OutboxPosition position;
  private final OutboxPosition next;

  OutboxEntry(String id, String json, OutboxPosition position, OutboxPosition next) {
    this.id = Objects.requireNonNull(id, "id");
    this.json = Objects.requireNonNull(json, "json");
    this.position = position;
    this.next = next;
  }

  public String id() {
    return id;
  }

  public String json() {
    return json;
  }

  OutboxPosition position() {
    return position;
  }

  /** Where the entry after this one starts. */
  OutboxPosition next() {
    return next;
  }

  @Override
  public String toString() {
    return "OutboxEntry{" + id + " at " + position + "}";
  }
}
