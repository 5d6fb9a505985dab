package io.verglas.cache.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.OriginException.Reason;
import io.verglas.cache.origin.s3.S3Origin;
import java.net.URI;
import org.junit.jupiter.api.Test;

/** {@link S3Origin} directly against s3proxy: the origin contract, and what only a remote store can do. */
class S3OriginTest extends OriginContract {
  private TestingS3Proxy proxy;

  @Override
  protected Origin newOrigin() throws Exception {
    proxy = new TestingS3Proxy();
    return S3Origin.builder().endpoint(proxy.endpoint()).credentials(TestingS3Proxy.ACCESS, TestingS3Proxy.SECRET).build();
  }

  @Override
  protected void stopOrigin() throws Exception {
    proxy.close();
  }

  @Test
  void anUnreachableOriginIsUnavailable() {
    try (S3Origin dead = S3Origin.builder().endpoint(URI.create("http://127.0.0.1:1")).anonymous().build()) {
      assertThatThrownBy(() -> dead.head("bkt", "k").join())
          .satisfies(t -> assertThat(reason(t)).isEqualTo(Reason.UNAVAILABLE));
    }
  }
}
