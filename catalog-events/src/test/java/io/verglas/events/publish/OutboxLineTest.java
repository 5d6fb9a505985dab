package io.verglas.events.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class OutboxLineTest {
  static final String GOLDEN_JSON = "{\"id\":\"u:7\",\"subject\":\"ns.t\u00ebst\"}";

  @Test
  void readsAndWritesTheGoldenVersionOneLine() throws IOException {
    byte[] golden = resource("/outbox/line-v1.txt");

    assertThat(OutboxLine.encode(GOLDEN_JSON)).isEqualTo(golden);
    assertThat(OutboxLine.decode(golden, golden.length - 1)).isEqualTo(GOLDEN_JSON);
  }

  @Test
  void refusesADamagedLine() {
    byte[] line = OutboxLine.encode(GOLDEN_JSON);
    byte[] flipped = line.clone();
    flipped[OutboxLine.HEADER_BYTES + 3] ^= 1;
    byte[] cut = Arrays.copyOf(line, line.length - 5);

    assertThatThrownBy(() -> OutboxLine.decode(flipped, flipped.length - 1))
        .hasMessageStartingWith("Corrupt outbox line: checksum");
    assertThatThrownBy(() -> OutboxLine.decode(cut, cut.length))
        .hasMessageStartingWith("Corrupt outbox line: checksum");
    byte[] zeros = new byte[40];
    assertThatThrownBy(() -> OutboxLine.decode(zeros, zeros.length))
        .hasMessage("Corrupt outbox line: no version");
  }

  @Test
  void refusesAnUnknownVersionNamingIt() {
    byte[] line = ("2 00000000 " + GOLDEN_JSON).getBytes(StandardCharsets.UTF_8);

    assertThatThrownBy(() -> OutboxLine.decode(line, line.length))
        .hasMessage("Unknown outbox line version: '2' (this version reads 1)");
  }

  @Test
  void refusesJsonWithALineBreak() {
    assertThatThrownBy(() -> OutboxLine.encode("{\"id\":\n\"x\"}"))
        .hasMessage("Cannot encode outbox entry: it contains a line break");
  }

  private static byte[] resource(String name) throws IOException {
    try (InputStream in = OutboxLineTest.class.getResourceAsStream(name)) {
      return in.readAllBytes();
    }
  }
}
