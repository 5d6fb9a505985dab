package io.verglas.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class BatchMetadataParserTest {
  @Test
  void roundTripsAKey() {
    byte[] bytes = BatchMetadataParser.toBytes(BatchMetadata.withKey("order-17"));
    assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("{\"idempotencyKey\":\"order-17\"}");
    assertThat(BatchMetadataParser.fromBytes(bytes).idempotencyKey()).isEqualTo("order-17");
  }

  @Test
  void emptyOrKeylessMetadataMeansNoKey() {
    assertThat(BatchMetadataParser.fromBytes(null)).isEqualTo(BatchMetadata.NONE);
    assertThat(BatchMetadataParser.fromBytes(new byte[0])).isEqualTo(BatchMetadata.NONE);
    assertThat(BatchMetadataParser.fromBytes(utf8("{\"other\":1}"))).isEqualTo(BatchMetadata.NONE);
  }

  @Test
  void rejectsMalformedMetadataAndBadKeys() {
    assertThatThrownBy(() -> BatchMetadataParser.fromBytes(utf8("key=1")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not JSON");
    assertThatThrownBy(() -> BatchMetadataParser.fromBytes(utf8("{\"idempotencyKey\":5}")))
        .hasMessageContaining("must be a string");
    assertThatThrownBy(() -> BatchMetadataParser.fromBytes(utf8("{\"idempotencyKey\":\" \"}")))
        .hasMessageContaining("blank");
    assertThatThrownBy(() -> BatchMetadata.withKey("k".repeat(257)))
        .hasMessageContaining("257 characters, at most 256");
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
