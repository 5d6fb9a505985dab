package io.verglas.cache.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class Crc64NvmeTest {
  @Test
  void checkValue() {
    Crc64Nvme crc = new Crc64Nvme();
    crc.update("123456789".getBytes(StandardCharsets.US_ASCII), 0, 9);
    assertThat(crc.getValue()).isEqualTo(0xAE8B14860A799888L);
    crc.reset();
    assertThat(crc.getValue()).isZero();
  }

  @Test
  void incrementalEqualsWhole() {
    byte[] data = new byte[1000];
    for (int i = 0; i < data.length; i++) {
      data[i] = (byte) (i * 31);
    }
    Crc64Nvme whole = new Crc64Nvme();
    whole.update(data, 0, data.length);
    Crc64Nvme parts = new Crc64Nvme();
    parts.update(data, 0, 333);
    parts.update(java.nio.ByteBuffer.wrap(data, 333, 667));
    assertThat(parts.getValue()).isEqualTo(whole.getValue());
  }
}
