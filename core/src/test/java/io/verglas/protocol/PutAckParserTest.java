package io.verglas.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.wal.WalPosition;
import org.junit.jupiter.api.Test;

class PutAckParserTest {
  @Test
  void roundTripsAndKeepsTheDocumentedFieldNames() {
    PutAck ack = new PutAck("ingest-1", 42, 3, 1L << 40, 500);

    String json = PutAckParser.toJson(ack);

    assertThat(json).isEqualTo(
        "{\"stream\":\"ingest-1\",\"sequence\":42,\"batch\":3,\"hlc\":1099511627776,\"rows\":500}");
    assertThat(PutAckParser.fromBytes(PutAckParser.toBytes(ack))).isEqualTo(ack);
  }

  @Test
  void ignoresUnknownFieldsAndNamesMissingOnes() {
    assertThat(PutAckParser.fromJson(
        "{\"stream\":\"s\",\"sequence\":1,\"batch\":0,\"hlc\":7,\"rows\":2,\"later\":true}"))
        .isEqualTo(new PutAck("s", 1, 0, 7, 2));
    assertThatThrownBy(() -> PutAckParser.fromJson("{\"stream\":\"s\",\"batch\":0}"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sequence");
    assertThatThrownBy(() -> PutAckParser.fromJson("[]"))
        .hasMessageContaining("not a JSON object");
  }

  @Test
  void givesRowPositions() {
    PutAck ack = new PutAck("s", 9, 2, 100, 3);
    assertThat(ack.position(1)).isEqualTo(new WalPosition(100, "s", 9, 2, 1));
    assertThatThrownBy(() -> ack.position(3)).isInstanceOf(IndexOutOfBoundsException.class);
  }
}
