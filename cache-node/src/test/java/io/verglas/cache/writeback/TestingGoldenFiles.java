package io.verglas.cache.writeback;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/** Golden byte formats kept as hex text in test resources, beside the test that owns them. */
public final class TestingGoldenFiles {
  private TestingGoldenFiles() {}

  public static byte[] hex(Class<?> owner, String name) throws IOException {
    try (InputStream in = owner.getResourceAsStream(name)) {
      assertThat(in).as("golden file %s", name).isNotNull();
      return HexFormat.of().parseHex(new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim());
    }
  }
}
