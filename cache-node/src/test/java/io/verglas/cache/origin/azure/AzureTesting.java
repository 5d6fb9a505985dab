package io.verglas.cache.origin.azure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.cache.origin.ObjectBody;
import io.verglas.cache.origin.OriginException;
import io.verglas.cache.origin.OriginException.Reason;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/** Small helpers of the Azure origin's tests. */
final class AzureTesting {
  private AzureTesting() {}

  static ObjectBody body(String s) {
    return ObjectBody.ofBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  static byte[] bytes(int length, long seed) {
    byte[] b = new byte[length];
    new Random(seed).nextBytes(b);
    return b;
  }

  static Reason reason(Throwable t) {
    Throwable e = t;
    while (!(e instanceof OriginException) && e.getCause() != null) {
      e = e.getCause();
    }
    return e instanceof OriginException o ? o.reason() : null;
  }

  static void assertReason(CompletableFuture<?> f, Reason reason) {
    assertThatThrownBy(f::join).satisfies(e -> assertThat(reason(e)).as(String.valueOf(e)).isEqualTo(reason));
  }
}
