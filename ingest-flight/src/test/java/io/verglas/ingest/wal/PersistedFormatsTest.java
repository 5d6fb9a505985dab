package io.verglas.ingest.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.protocol.PutAck;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bookkeeping objects an ingest stream persists, against their version-1 golden files. */
class PersistedFormatsTest {
  private static byte[] golden(String name) throws Exception {
    try (InputStream in = PersistedFormatsTest.class.getResourceAsStream("/wal/" + name)) {
      return in.readAllBytes();
    }
  }

  @Test
  void keyJournalVersionOne() throws Exception {
    KeyJournal journal = new KeyJournal("ingest-1.2", 42, 1_767_225_600_000L, List.of(
        new KeyJournal.Entry("6f1c2c1e-0000-4000-8000-000000000001", "order-17", 0,
            115_763_196_723_200_000L, 500),
        new KeyJournal.Entry("6f1c2c1e-0000-4000-8000-000000000001", "order-18", 2,
            115_763_196_723_200_003L, 7)));

    assertThat(journal.toBytes()).isEqualTo(golden("key-journal-v1.json"));
    assertThat(KeyJournal.fromBytes(golden("key-journal-v1.json"))).isEqualTo(journal);
    assertThat(journal.ack(journal.entries().get(1)))
        .isEqualTo(new PutAck("ingest-1.2", 42, 2, 115_763_196_723_200_003L, 7));
  }

  @Test
  void claimVersionOne() throws Exception {
    StreamClaim.Claim claim = new StreamClaim.Claim(3, "host-a/4242/0c8e", 1_767_225_600_000L, 4);

    assertThat(StreamClaim.toBytes(claim)).isEqualTo(golden("claim-v1.json"));
    assertThat(StreamClaim.fromBytes(golden("claim-v1.json"))).isEqualTo(claim);
  }

  @Test
  void unknownVersionsAndGarbageAreRefused() {
    assertThatThrownBy(() -> KeyJournal.fromBytes("{\"version\":2}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot parse key journal: unknown version 2");
    assertThatThrownBy(() -> KeyJournal.fromBytes("[1]".getBytes(StandardCharsets.UTF_8)))
        .hasMessage("Cannot parse key journal: not a JSON object");
    assertThatThrownBy(() -> StreamClaim.fromBytes("{\"version\":9}".getBytes(StandardCharsets.UTF_8)))
        .hasMessage("Cannot parse stream claim: unknown version 9");
  }

  @Test
  void layoutKeepsBookkeepingOutsideTheWalPrefix() {
    IngestLayout layout = new IngestLayout(io.verglas.wal.WalLayout.defaults());
    assertThat(layout.laneStreamId("ingest-1", 0)).isEqualTo("ingest-1");
    assertThat(layout.laneStreamId("ingest-1", 3)).isEqualTo("ingest-1.3");
    assertThat(layout.claimKey("ingest-1", 7)).isEqualTo("_wal.ingest/ingest-1/epochs/00000000000000000007");
    assertThat(layout.parseClaim("ingest-1", layout.claimKey("ingest-1", 7))).isEqualTo(7);
    assertThat(layout.parseClaim("ingest-1", "_wal.ingest/ingest-1/epochs/x")).isEqualTo(-1);
    assertThat(layout.journalKey("ingest-1", "ingest-1.3", 9))
        .isEqualTo("_wal.ingest/ingest-1/keys/ingest-1.3/00000000000000000009.json");
    assertThat(layout.claimKey("s", 1)).doesNotStartWith(io.verglas.wal.WalLayout.defaults().prefix());
  }
}
