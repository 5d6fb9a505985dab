package io.verglas.ingest;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The ingest server's command line refuses what it does not take, before it starts anything. */
class IngestServerMainTest {
  @Test
  void unknownOptionIsRefusedByName() {
    assertThatThrownBy(() -> IngestServerMain.main(new String[] {"--stream", "s", "--lane", "2"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot start ingest server: unknown option '--lane'");
  }

  @Test
  void missingRequiredOptionIsNamed() {
    assertThatThrownBy(() -> IngestServerMain.main(new String[] {"--stream", "s"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("missing --s3-endpoint");
  }
}
