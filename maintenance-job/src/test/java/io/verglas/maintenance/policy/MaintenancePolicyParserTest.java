package io.verglas.maintenance.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MaintenancePolicyParserTest {
  @Test
  void absentPropertiesGiveTheDocumentedDefaults() {
    MaintenancePolicy policy = MaintenancePolicyParser.fromProperties(Map.of());
    assertThat(policy).isEqualTo(MaintenancePolicy.defaults());
    assertThat(policy.enabled()).isTrue();
    assertThat(policy.targetFileSizeBytes()).isEqualTo(128L << 20);
    assertThat(policy.minFileSizeBytes()).isEqualTo(96L << 20);
    assertThat(policy.maxFileSizeBytes()).isEqualTo((128L << 20) * 9 / 5);
    assertThat(policy.deleteFileCountThreshold()).isEqualTo(8);
    assertThat(policy.deleteRatioThreshold()).isEqualTo(0.2);
    assertThat(policy.smallFileCountThreshold()).isEqualTo(8);
    assertThat(policy.manifestCountThreshold()).isEqualTo(16);
    assertThat(policy.snapshotMaxAge()).isEqualTo(Duration.ofDays(1));
    assertThat(policy.snapshotMinCount()).isEqualTo(10);
    assertThat(policy.orphanSafetyAge()).isEqualTo(Duration.ofDays(3));
    assertThat(policy.rewritePause()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void everyPropertyIsRead() {
    MaintenancePolicy policy = MaintenancePolicyParser.fromProperties(Map.ofEntries(
        Map.entry("verglas.maintenance.enabled", "false"),
        Map.entry("verglas.maintenance.target-file-size-bytes", "1000"),
        Map.entry("verglas.maintenance.min-file-size-bytes", "500"),
        Map.entry("verglas.maintenance.max-file-size-bytes", "2000"),
        Map.entry("verglas.maintenance.max-group-bytes", "10000"),
        Map.entry("verglas.maintenance.delete-file-count-threshold", "3"),
        Map.entry("verglas.maintenance.delete-ratio-threshold", "0.5"),
        Map.entry("verglas.maintenance.small-file-count-threshold", "4"),
        Map.entry("verglas.maintenance.manifest-count-threshold", "5"),
        Map.entry("verglas.maintenance.snapshot-max-age-ms", "60000"),
        Map.entry("verglas.maintenance.snapshot-min-count", "2"),
        Map.entry("verglas.maintenance.orphan-safety-age-ms", "120000"),
        Map.entry("verglas.maintenance.rewrite-pause-ms", "250")));
    assertThat(policy).isEqualTo(MaintenancePolicy.builder().enabled(false)
        .targetFileSizeBytes(1000).minFileSizeBytes(500).maxFileSizeBytes(2000)
        .maxGroupBytes(10000).deleteFileCountThreshold(3).deleteRatioThreshold(0.5)
        .smallFileCountThreshold(4).manifestCountThreshold(5)
        .snapshotMaxAge(Duration.ofMinutes(1)).snapshotMinCount(2)
        .orphanSafetyAge(Duration.ofMinutes(2)).rewritePause(Duration.ofMillis(250)).build());
  }

  @Test
  void icebergsTargetFileSizeIsTheFallbackAndOursWins() {
    assertThat(MaintenancePolicyParser.fromProperties(
        Map.of("write.target-file-size-bytes", "4000")).targetFileSizeBytes()).isEqualTo(4000);
    assertThat(MaintenancePolicyParser.fromProperties(Map.of(
        "write.target-file-size-bytes", "4000",
        "verglas.maintenance.target-file-size-bytes", "8000")).targetFileSizeBytes())
        .isEqualTo(8000);
  }

  @Test
  void badValuesNameTheKeyAndTheValue() {
    assertThatThrownBy(() -> MaintenancePolicyParser.fromProperties(
        Map.of("verglas.maintenance.delete-ratio-threshold", "1.5")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("verglas.maintenance.delete-ratio-threshold=1.5")
        .hasMessageContaining("(0, 1]");
    assertThatThrownBy(() -> MaintenancePolicyParser.fromProperties(
        Map.of("verglas.maintenance.snapshot-min-count", "ten")))
        .hasMessageContaining("verglas.maintenance.snapshot-min-count=ten");
    assertThatThrownBy(() -> MaintenancePolicyParser.fromProperties(
        Map.of("verglas.maintenance.enabled", "yes")))
        .hasMessageContaining("verglas.maintenance.enabled=yes");
    assertThatThrownBy(() -> MaintenancePolicyParser.fromProperties(
        Map.of("verglas.maintenance.small-file-count-threshold", "1")))
        .hasMessageContaining("must be >= 2");
  }

  @Test
  void sizesMustBeOrdered() {
    assertThatThrownBy(() -> MaintenancePolicyParser.fromProperties(Map.of(
        "verglas.maintenance.target-file-size-bytes", "1000",
        "verglas.maintenance.max-file-size-bytes", "900")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("min 750 <= target 1000 <= max 900");
    assertThatThrownBy(() -> MaintenancePolicy.builder().targetFileSizeBytes(1000)
        .maxGroupBytes(1000).build())
        .hasMessageContaining("max group size: 1000");
  }

  @Test
  void toBuilderRoundTrips() {
    MaintenancePolicy policy = MaintenancePolicy.builder().targetFileSizeBytes(4096)
        .rewritePause(Duration.ZERO).build();
    assertThat(policy.toBuilder().build()).isEqualTo(policy).hasSameHashCodeAs(policy);
  }
}
