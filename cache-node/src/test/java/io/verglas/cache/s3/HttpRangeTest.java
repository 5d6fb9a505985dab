package io.verglas.cache.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HttpRangeTest {
  @Test
  void threeForms() {
    assertThat(HttpRange.parse("bytes=0-9", 100)).isEqualTo(new HttpRange(0, 9));
    assertThat(HttpRange.parse("bytes=90-", 100)).isEqualTo(new HttpRange(90, 99));
    assertThat(HttpRange.parse("bytes=-10", 100)).isEqualTo(new HttpRange(90, 99));
    assertThat(HttpRange.parse("bytes=-1000", 100)).isEqualTo(new HttpRange(0, 99));
    assertThat(HttpRange.parse("bytes=50-1000", 100)).isEqualTo(new HttpRange(50, 99));
  }

  @Test
  void unsatisfiableIs416() {
    for (String h : new String[] {"bytes=100-", "bytes=100-200", "bytes=-0"}) {
      assertThatThrownBy(() -> HttpRange.parse(h, 100))
          .isInstanceOfSatisfying(S3Exception.class,
              e -> assertThat(e.code()).isEqualTo(S3ErrorCode.INVALID_RANGE));
    }
    assertThatThrownBy(() -> HttpRange.parse("bytes=0-", 0)).isInstanceOf(S3Exception.class);
  }

  @Test
  void likeS3OtherHeadersAreIgnored() {
    assertThat(HttpRange.parse(null, 100)).isNull();
    assertThat(HttpRange.parse("bytes=0-1,5-6", 100)).isNull();
    assertThat(HttpRange.parse("items=0-1", 100)).isNull();
    assertThat(HttpRange.parse("bytes=9-1", 100)).isNull();
    assertThat(HttpRange.parse("bytes=a-b", 100)).isNull();
  }
}
