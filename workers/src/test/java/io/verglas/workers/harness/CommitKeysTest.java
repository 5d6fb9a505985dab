package io.verglas.workers.harness;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CommitKeysTest {
  @Test
  void keysDependOnlyOnDeploymentTriggerAndOrdinal() {
    assertThat(CommitKeys.commit("hourly", "hourly/cron/2026-01-01T00:00:00Z", 2))
        .isEqualTo("hourly/hourly/cron/2026-01-01T00:00:00Z/c2")
        .isEqualTo(CommitKeys.commit("hourly", "hourly/cron/2026-01-01T00:00:00Z", 2));
    assertThat(CommitKeys.commit("hourly", "t", 0)).isNotEqualTo(CommitKeys.commit("hourly", "t", 1))
        .isNotEqualTo(CommitKeys.commit("daily", "t", 0));
  }

  @Test
  void longIdentitiesAreHashedWithinTheWalKeyBound() {
    String identity = "x".repeat(400);
    String key = CommitKeys.commit("hourly", identity, 7);
    assertThat(key).hasSizeLessThanOrEqualTo(CommitKeys.MAX_LENGTH).startsWith("sha256:").endsWith("/c7")
        .isEqualTo(CommitKeys.commit("hourly", identity, 7))
        .isNotEqualTo(CommitKeys.commit("hourly", identity + "y", 7));
  }
}
