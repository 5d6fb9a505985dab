package io.verglas.cache.origin.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.cache.origin.PartRange;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/** How a HEAD with partNumber (as AWS S3 answers it) becomes a {@link PartRange}. */
class S3OriginPartRangeTest {
  @Test
  void contentRangeAndPartsCountGiveThePart() {
    HeadObjectResponse r = HeadObjectResponse.builder().contentRange("bytes 5242880-10485762/10485862")
        .contentLength(5242883L).partsCount(3).build();
    assertThat(S3Origin.partRange(r, "b", "k")).isEqualTo(new PartRange(3, 5242880, 10485762));
  }

  @Test
  void anObjectInOnePieceIsOnePartWithoutContentRange() {
    HeadObjectResponse r = HeadObjectResponse.builder().contentLength(12L).build();
    assertThat(S3Origin.partRange(r, "b", "k")).isEqualTo(new PartRange(1, 0, 11));
  }

  @Test
  void anUnreadableContentRangeIsAnError() {
    HeadObjectResponse r = HeadObjectResponse.builder().contentRange("items 1-2").contentLength(2L).build();
    assertThatThrownBy(() -> S3Origin.partRange(r, "b", "k")).hasMessageContaining("items 1-2");
  }
}
