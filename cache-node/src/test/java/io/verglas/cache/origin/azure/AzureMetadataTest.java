package io.verglas.cache.origin.azure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.NotEmpty;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

/** User metadata names escaped into Azure's identifier alphabet, and back. */
class AzureMetadataTest {
  @Property(tries = 500)
  void everyNameRoundTripsThroughAValidAzureName(@ForAll @NotEmpty @StringLength(max = 40) String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    String stored = AzureMetadata.encodeName(lower);
    assertThat(stored).matches("[a-z_][a-z0-9_]*");
    assertThat(stored).doesNotContain("__").doesNotStartWith(AzureMetadata.INTERNAL_PREFIX);
    // Azure may hand names back in another case: decoding must not care
    assertThat(AzureMetadata.decodeName(stored.toUpperCase(Locale.ROOT))).isEqualTo(decodedOf(lower));
  }

  /** What survives the trip: unpaired surrogates cannot be encoded as UTF-8 and become '?'. */
  private static String decodedOf(String name) {
    return new String(name.getBytes(java.nio.charset.StandardCharsets.UTF_8), java.nio.charset.StandardCharsets.UTF_8);
  }

  @Test
  void plainNamesStayReadable() {
    assertThat(AzureMetadata.encodeName("owner")).isEqualTo("owner");
    assertThat(AzureMetadata.encodeName("x-trace-id")).isEqualTo("x_2dtrace_2did");
    assertThat(AzureMetadata.encodeName("9lives")).isEqualTo("_39lives");
    assertThat(AzureMetadata.encodeName("snake_case")).isEqualTo("snake_5fcase");
    assertThat(AzureMetadata.decodeName("OtherToolsName")).isEqualTo("othertoolsname");
  }
}
