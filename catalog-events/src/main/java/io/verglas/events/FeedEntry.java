package io.verglas.events;

import java.util.Objects;
import java.util.Optional;

/**
 * One line of the change feed as this version reads it: its CloudEvents type and feed sequence
 * always, the event itself only when the type is one this version knows. Producers may add types
 * before every consumer knows them; a consumer skips what it cannot read and still moves past it.
 *
 * @param type the CloudEvents {@code type} attribute
 * @param feedSequence the line's feed sequence (0 when the line carries none)
 * @param event the parsed event, empty for an unknown type
 */
public record FeedEntry(String type, long feedSequence, Optional<FeedEvent> event) {
  public FeedEntry {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(event, "event");
  }

  public boolean known() {
    return event.isPresent();
  }
}
