package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ObjectLocationTest {
  @Test
  void readsBucketAndKeyOfS3Locations() {
    assertThat(ObjectLocation.parse("s3://warehouse/db/t/metadata/v1.metadata.json"))
        .isEqualTo(new ObjectLocation("warehouse", "db/t/metadata/v1.metadata.json"));
    assertThat(ObjectLocation.parse("s3a://w/k")).isEqualTo(new ObjectLocation("w", "k"));
    assertThat(ObjectLocation.parse("S3N://w//k")).isEqualTo(new ObjectLocation("w", "k"));
  }

  @Test
  void refusesWhatNamesNoBucketAndKey() {
    for (String bad : new String[] {"file:///tmp/x", "/tmp/x", "s3://bucket", "s3://bucket/", "s3:///key", "gs://b/k"}) {
      assertThatThrownBy(() -> ObjectLocation.parse(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Cannot read " + bad + ":");
    }
  }
}
