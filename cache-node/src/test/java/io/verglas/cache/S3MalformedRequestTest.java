package io.verglas.cache;

import static io.verglas.cache.TestingCacheNode.ACCESS_KEY;
import static io.verglas.cache.TestingCacheNode.BUCKET;
import static io.verglas.cache.TestingCacheNode.SECRET_KEY;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;

/**
 * Requests the HTTP decoder cannot parse get a 400 with an S3 error document and a closed
 * connection, never a connection dropped without an answer; the server goes on serving.
 */
class S3MalformedRequestTest extends CacheNodeTestBase {
  @BeforeEach
  void putObject() {
    t.s3.putObject(b -> b.bucket(BUCKET).key("obj"), RequestBody.fromString("payload"));
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "Content-Length: abc\r\n",
      "Content-Length: -5\r\n",
      "Content-Length: 5\r\nContent-Length: 6\r\n",
      "Content-Length: 5, 6\r\n",
      "Content-Length: 99999999999999999999\r\n"})
  void aMalformedContentLengthIsBadRequest(String contentLength) throws Exception {
    String head = "PUT /" + BUCKET + "/new HTTP/1.1\r\nHost: " + host() + "\r\n" + contentLength + "\r\n";
    TestingRawHttp.Response r = answerTo(head);
    assertThat(r.text()).contains("<Code>BadRequest</Code>").contains("Content-Length");
    assertServesASignedGet();
  }

  @Test
  void anOversizedHeaderSectionIsRequestHeaderSectionTooLarge() throws Exception {
    String head = "GET /" + BUCKET + "/obj HTTP/1.1\r\nHost: " + host() + "\r\nx-filler: "
        + "a".repeat(70 * 1024) + "\r\n\r\n";
    TestingRawHttp.Response r = answerTo(head);
    assertThat(r.text()).contains("<Code>RequestHeaderSectionTooLarge</Code>")
        .contains("<MaxSizeAllowed>65536</MaxSizeAllowed>");
    assertServesASignedGet();
  }

  @Test
  void anOversizedRequestLineIsBadRequest() throws Exception {
    String head = "GET /" + BUCKET + "/" + "k".repeat(20 * 1024) + " HTTP/1.1\r\nHost: " + host() + "\r\n\r\n";
    assertThat(answerTo(head).text()).contains("<Code>BadRequest</Code>");
    assertServesASignedGet();
  }

  /** Sends a raw head; the answer must be a 400 XML error, and the connection closed after it. */
  private TestingRawHttp.Response answerTo(String head) throws Exception {
    try (TestingRawHttp http = new TestingRawHttp(t.node.endpoint())) {
      http.sendRaw(head, new byte[0]);
      TestingRawHttp.Response r = http.read(false);
      assertThat(r.status()).isEqualTo(400);
      assertThat(r.headers()).containsEntry("connection", "close").containsEntry("content-type", "application/xml");
      assertThat(r.text()).startsWith("<?xml").contains("<Error>");
      assertThat(http.closedByServer()).isTrue();
      return r;
    }
  }

  private void assertServesASignedGet() throws Exception {
    String path = "/" + BUCKET + "/obj";
    SignedRequest signed = TestingRawHttp.sign(URI.create(t.node.endpoint() + path), SdkHttpMethod.GET,
        new byte[0], false, ACCESS_KEY, SECRET_KEY);
    Map<String, String> headers = new LinkedHashMap<>();
    signed.request().headers().forEach((k, v) -> headers.put(k, String.join(",", v)));
    try (TestingRawHttp http = new TestingRawHttp(t.node.endpoint())) {
      TestingRawHttp.Response r = http.exchange("GET", path, headers, new byte[0]);
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.text()).isEqualTo("payload");
    }
  }

  private String host() {
    return t.node.endpoint().getHost() + ":" + t.node.endpoint().getPort();
  }
}
