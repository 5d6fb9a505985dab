package io.verglas.cache.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class UriEncodingTest {
  @Test
  void sigV4Rules() {
    assertThat(UriEncoding.encode("a b+c/d~e*ü", true)).isEqualTo("a%20b%2Bc/d~e%2A%C3%BC");
    assertThat(UriEncoding.encode("a/b", false)).isEqualTo("a%2Fb");
    assertThat(UriEncoding.decode("a%20b+c%2fd")).isEqualTo("a b+c/d");
  }

  @Test
  void strictDecoding() {
    assertThatThrownBy(() -> UriEncoding.decode("%G0")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> UriEncoding.decode("%C3")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> UriEncoding.decode("%FF%FE")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> UriEncoding.decode("abc%2")).isInstanceOf(IllegalArgumentException.class);
  }

  @Property(tries = 300)
  void roundTrips(@ForAll String value) {
    boolean wellFormed = value.codePoints().noneMatch(c -> c >= 0xD800 && c <= 0xDFFF);
    if (wellFormed) {
      assertThat(UriEncoding.decode(UriEncoding.encode(value, true))).isEqualTo(value);
    }
  }
}
