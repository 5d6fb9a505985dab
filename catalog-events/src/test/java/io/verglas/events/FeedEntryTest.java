package io.verglas.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class FeedEntryTest {
  private static final String FUTURE_TYPE = "io.verglas.table.branch-created";

  @Test
  void knownTypesReadAsTheirEvents() {
    CatalogEvent commit = TestingEvents.commit("ns.t", 7).withFeedSequence(41);
    TableMaintainedEvent expiry = TestingEvents.expiry("ns.t", "c-1").withFeedSequence(42);

    FeedEntry first = FeedEventParser.entryFromJson(FeedEventParser.toJson(commit));
    FeedEntry second = FeedEventParser.entryFromJson(FeedEventParser.toJson(expiry));

    assertThat(first.known()).isTrue();
    assertThat(first.event()).contains(commit);
    assertThat(first.feedSequence()).isEqualTo(41);
    assertThat(second.type()).isEqualTo(TableMaintainedEvent.TYPE);
    assertThat(second.event()).contains(expiry);
  }

  @Test
  void anUnknownTypeKeepsItsTypeAndSequenceButNoEvent() {
    FeedEntry entry = FeedEventParser.entryFromJson(futureEvent(43));

    assertThat(entry.known()).isFalse();
    assertThat(entry.type()).isEqualTo(FUTURE_TYPE);
    assertThat(entry.feedSequence()).isEqualTo(43);
    // The strict reader still refuses it: a producer must not write what it cannot name.
    assertThatThrownBy(() -> FeedEventParser.fromJson(futureEvent(43)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown type");
  }

  @Test
  void malformedLinesStillFail() {
    assertThatThrownBy(() -> FeedEventParser.entryFromJson("{\"id\":\"x\"}"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("missing type");
    assertThatThrownBy(() -> FeedEventParser.entryFromJson("not json"))
        .isInstanceOf(IllegalArgumentException.class);
    String broken = FeedEventParser.toJson(TestingEvents.commit("ns.t", 7))
        .replace("\"table-uuid\"", "\"other\"");
    assertThatThrownBy(() -> FeedEventParser.entryFromJson(broken))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("table-uuid");
  }

  static String futureEvent(long sequence) {
    return "{\"specversion\":\"1.0\",\"id\":\"e-" + sequence + "\",\"source\":\"verglas://test\","
        + "\"type\":\"" + FUTURE_TYPE + "\",\"subject\":\"ns.t\",\"time\":\"2026-11-29T12:00:00Z\","
        + "\"feedsequence\":" + sequence + ",\"data\":{\"table\":[\"ns\",\"t\"]}}";
  }
}
