package io.verglas.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BatchCompressionTest {
  @Test
  void defaultsCompressWithZstdFrom64KiB() {
    BatchCompression defaults = BatchCompression.defaults();

    assertThat(defaults.codec()).isEqualTo(BatchCompression.Codec.ZSTD);
    assertThat(defaults.compresses(64 * 1024 - 1)).isFalse();
    assertThat(defaults.compresses(64 * 1024)).isTrue();
    assertThat(defaults).hasToString("zstd from 65536 bytes");
  }

  @Test
  void noneNeverCompresses() {
    assertThat(BatchCompression.none().compresses(Long.MAX_VALUE)).isFalse();
    assertThat(BatchCompression.of(BatchCompression.Codec.NONE, 0))
        .isEqualTo(BatchCompression.none());
  }

  @Test
  void parsesCodecNames() {
    assertThat(BatchCompression.Codec.parse("LZ4_frame"))
        .isEqualTo(BatchCompression.Codec.LZ4_FRAME);
    assertThatThrownBy(() -> BatchCompression.Codec.parse("gzip"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid compression codec: 'gzip' (expected none, zstd or lz4_frame)");
  }

  @Test
  void refusesANegativeThreshold() {
    assertThatThrownBy(() -> BatchCompression.of(BatchCompression.Codec.ZSTD, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Invalid minimum compressed batch bytes: -1");
  }

  @Test
  void compressionIsSetOnce() {
    VerglasClient.Builder builder = VerglasClient.builder()
        .batchCompression(BatchCompression.none());
    assertThatThrownBy(() -> builder.batchCompression(BatchCompression.defaults()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("batchCompression was already set to none");
  }
}
