package io.verglas.cache.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class KeyedSequencerTest {
  @Test
  void writesOfOneKeyRunInOrderAndOtherKeysDoNotWait() {
    KeyedSequencer sequencer = new KeyedSequencer();
    List<String> started = new ArrayList<>();
    CompletableFuture<String> first = new CompletableFuture<>();
    CompletableFuture<String> a1 = sequencer.run("b", "k", () -> {
      started.add("a1");
      return first;
    });
    CompletableFuture<String> a2 = sequencer.run("b", "k", () -> {
      started.add("a2");
      return CompletableFuture.completedFuture("a2");
    });
    CompletableFuture<String> other = sequencer.run("b", "other", () -> {
      started.add("other");
      return CompletableFuture.completedFuture("other");
    });
    assertThat(started).containsExactly("a1", "other");
    assertThat(a2).isNotDone();
    assertThat(sequencer.inFlight()).isEqualTo(1);
    first.completeExceptionally(new IllegalStateException("a failed write does not block the next"));
    assertThat(started).containsExactly("a1", "other", "a2");
    assertThat(a1).isCompletedExceptionally();
    assertThat(a2.join()).isEqualTo("a2");
    assertThat(other.join()).isEqualTo("other");
    assertThat(sequencer.inFlight()).isZero();
  }

  @Test
  void aWriteThatThrowsAtOnceFailsItsFutureAndReleasesTheKey() {
    KeyedSequencer sequencer = new KeyedSequencer();
    CompletableFuture<String> failed = sequencer.run("b", "k", () -> {
      throw new IllegalArgumentException("bad request");
    });
    assertThat(failed).isCompletedExceptionally();
    assertThat(sequencer.run("b", "k", () -> CompletableFuture.completedFuture("next")).join()).isEqualTo("next");
    assertThat(sequencer.inFlight()).isZero();
  }
}
