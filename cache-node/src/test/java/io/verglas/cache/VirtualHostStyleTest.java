package io.verglas.cache;

import static io.verglas.cache.TestingCacheNode.ACCESS_KEY;
import static io.verglas.cache.TestingCacheNode.BUCKET;
import static io.verglas.cache.TestingCacheNode.SECRET_KEY;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;

/**
 * Virtual-host-style requests ({@code <bucket>.<domain>} in the Host header), signed by the
 * SDK's signer for that host, against a node configured with the domain; path-style requests
 * keep working beside them. (The SDK clients cannot be used here: they would resolve
 * {@code warehouse.s3.verglas.test} through DNS.)
 */
class VirtualHostStyleTest {
  private static final String DOMAIN = "s3.verglas.test";
  @TempDir Path dir;
  TestingCacheNode t;
  String vhost;

  @BeforeEach
  void start() {
    t = new TestingCacheNode(dir, o -> o, b -> b.virtualHostDomain(DOMAIN));
    vhost = BUCKET + "." + DOMAIN + ":" + t.node.endpoint().getPort();
  }

  @AfterEach
  void stop() {
    t.close();
  }

  private TestingRawHttp.Response send(TestingRawHttp http, SdkHttpMethod method, String pathAndQuery, byte[] body) throws Exception {
    SignedRequest signed = TestingRawHttp.sign(URI.create("http://" + vhost + pathAndQuery), method, body, false,
        ACCESS_KEY, SECRET_KEY);
    Map<String, String> headers = new LinkedHashMap<>();
    signed.request().headers().forEach((k, v) -> headers.put(k, String.join(",", v)));
    return http.exchange(method.name(), pathAndQuery, headers, body);
  }

  @Test
  void putGetAndListThroughTheBucketHostName() throws Exception {
    try (TestingRawHttp http = new TestingRawHttp(t.node.endpoint()).host(vhost)) {
      TestingRawHttp.Response put = send(http, SdkHttpMethod.PUT, "/vh/key.txt", "hello".getBytes(StandardCharsets.UTF_8));
      assertThat(put.status()).as(put.text()).isEqualTo(200);

      TestingRawHttp.Response get = send(http, SdkHttpMethod.GET, "/vh/key.txt", new byte[0]);
      assertThat(get.status()).isEqualTo(200);
      assertThat(get.text()).isEqualTo("hello");

      TestingRawHttp.Response list = send(http, SdkHttpMethod.GET, "/?list-type=2&prefix=vh%2F", new byte[0]);
      assertThat(list.status()).isEqualTo(200);
      assertThat(list.text()).contains("<Name>" + BUCKET + "</Name>").contains("<Key>vh/key.txt</Key>");
    }
    // The same object, path style, through the SDK.
    assertThat(t.s3.getObjectAsBytes(b -> b.bucket(BUCKET).key("vh/key.txt")).asUtf8String()).isEqualTo("hello");
  }
}
