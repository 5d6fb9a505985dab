package io.verglas.materializer.delta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.materializer.data.PartitionedDataWriter.Replacements;
import io.verglas.materializer.data.PartitionedDataWriter.Staging;
import org.junit.jupiter.api.Test;

class StagingPolicyTest {
  @Test
  void aTableIsStagedToTheEndWhileAQuarterOfItsRowsAreReplacedWithinTheInterval() {
    StagingPolicy policy = new StagingPolicy(IntervalStaging.AUTO);
    assertThat(policy.next("t")).isEqualTo(Staging.PER_BATCH);

    policy.ended("t", new Replacements(1_000, 100, 150)); // 250 of 1 100 handed in
    assertThat(policy.next("t")).isEqualTo(Staging.PER_BATCH);

    policy.ended("t", new Replacements(1_000, 300, 100)); // 400 of 1 300
    assertThat(policy.next("t")).isEqualTo(Staging.UNTIL_COMPLETE);
    assertThat(policy.next("other")).isEqualTo(Staging.PER_BATCH);
    assertThat(policy.stagedTables()).isEqualTo(1);

    policy.ended("t", new Replacements(1_000, 10, 0));
    assertThat(policy.next("t")).isEqualTo(Staging.PER_BATCH);
  }

  @Test
  void aTableThatWroteNothingSinceTheLastBarrierIsForgotten() {
    StagingPolicy policy = new StagingPolicy(IntervalStaging.AUTO);
    policy.ended("busy", new Replacements(100, 100, 0));
    policy.ended("quiet", new Replacements(100, 100, 0));
    policy.checkpointed();
    assertThat(policy.stagedTables()).isEqualTo(2);

    policy.ended("busy", new Replacements(100, 100, 0));
    policy.checkpointed();
    assertThat(policy.next("busy")).isEqualTo(Staging.UNTIL_COMPLETE);
    assertThat(policy.next("quiet")).isEqualTo(Staging.PER_BATCH);
    assertThat(policy.stagedTables()).isEqualTo(1);
  }

  @Test
  void operatorsMayStageEveryTableOrNone() {
    StagingPolicy always = new StagingPolicy(IntervalStaging.ALWAYS);
    StagingPolicy never = new StagingPolicy(IntervalStaging.NEVER);
    for (StagingPolicy policy : new StagingPolicy[] {always, never}) {
      policy.ended("t", new Replacements(100, 0, 0));
      policy.ended("hot", new Replacements(100, 100, 0));
    }
    assertThat(always.next("t")).isEqualTo(Staging.UNTIL_COMPLETE);
    assertThat(never.next("hot")).isEqualTo(Staging.PER_BATCH);
    assertThatThrownBy(() -> IntervalStaging.parse("sometimes"))
        .hasMessage("Invalid interval staging 'sometimes': expected one of auto, always, never");
    assertThat(IntervalStaging.parse("Never")).isEqualTo(IntervalStaging.NEVER);
  }

  @Test
  void anEmptyIntervalReplacedNothing() {
    assertThat(new Replacements(0, 0, 0).replacedFraction()).isZero();
    assertThat(new Replacements(3, 1, 2).replacedFraction()).isEqualTo(0.75);
  }
}
