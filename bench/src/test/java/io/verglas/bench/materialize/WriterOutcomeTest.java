package io.verglas.bench.materialize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.verglas.bench.ProcessMemory;
import io.verglas.bench.ThreadCpu;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WriterOutcomeTest {
  @Test
  void theMedianRunIsReportedWithEveryRunsDurationInRunOrder() {
    WriterOutcome median = WriterOutcome.median(List.of(peer(7.5, 1), peer(6.0, 2), peer(6.9, 3)));
    assertThat(median.peer().scanRows()).isEqualTo(3);
    assertThat(median.runSeconds()).containsExactly(7.5, 6.0, 6.9);
    assertThat(median.failed()).isFalse();
  }

  @Test
  void ofAnEvenNumberTheSlowerOfTheMiddleTwo() {
    WriterOutcome median = WriterOutcome.median(List.of(peer(5.0, 1), peer(8.0, 2), peer(6.0, 3),
        peer(7.0, 4)));
    assertThat(median.peer().scanRows()).isEqualTo(4);
    assertThat(WriterOutcome.median(List.of(peer(5.0, 9))).peer().scanRows()).isEqualTo(9);
  }

  @Test
  void aFailedRunIsTheOutcome() {
    WriterOutcome median = WriterOutcome.median(List.of(peer(5.0, 1),
        WriterOutcome.failed("killed"), peer(6.0, 2)));
    assertThat(median.failed()).isTrue();
    assertThat(median.error()).isEqualTo("killed");
    assertThatThrownBy(() -> WriterOutcome.median(List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void anOutcomeReadsBackAsItWasWritten() throws Exception {
    // The child process writes its outcome as JSON and the benchmark reads it back.
    ObjectMapper json = new ObjectMapper();
    OursRun.Ours ours = new OursRun.Ours(figures(6.3), 100, 84_000_000L, 4, 2, 1, 263.8,
        500_000L, new double[] {1290.0, 790.0}, 32_000_000L);
    WriterOutcome written = WriterOutcome.median(List.of(WriterOutcome.of(ours)))
        .withMemory(new ProcessMemory.Usage(3053, 1472, 174));
    WriterOutcome read = json.readValue(json.writeValueAsString(written), WriterOutcome.class);
    assertThat(read.ours().window()).isEqualTo(ours.window());
    assertThat(read.ours().freshnessMs()).containsExactly(1290.0, 790.0);
    assertThat(read.ours().walBytes()).isEqualTo(84_000_000L);
    assertThat(read.memory()).isEqualTo(written.memory());
    assertThat(read.runSeconds()).containsExactly(6.3);

    WriterOutcome peer = peer(7.1, 500_000);
    assertThat(json.readValue(json.writeValueAsString(peer), WriterOutcome.class))
        .isEqualTo(peer);
  }

  @Test
  void phasesSplitTheWindowAtTheInputsFirstAndLastActivity() {
    Phases phases = Phases.of(Optional.of(new ThreadCpu.Activity(900_000_000L, 5_900_000_000L)),
        6.8);
    assertThat(phases).isEqualTo(new Phases(0.9, 5.0, 0.9));
    // Input seen busy after the window closed (sampling period): no negative tail.
    assertThat(Phases.of(Optional.of(new ThreadCpu.Activity(0, 7_000_000_000L)), 6.95).tailS())
        .isZero();
    assertThat(Phases.of(Optional.empty(), 6.8)).isNull();
  }

  private static WriterOutcome peer(double seconds, long scanRows) {
    return WriterOutcome.of(new MaterializeBenchmark.Peer(figures(seconds), 2660.9, scanRows, 4,
        5));
  }

  private static MeasuredWindow.Figures figures(double seconds) {
    return new MeasuredWindow.Figures(seconds, 10.7, 1.4, Map.of("writer", 4.36),
        new Phases(0.9, seconds - 1.8, 0.9));
  }
}
