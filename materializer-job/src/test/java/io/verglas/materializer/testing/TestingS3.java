package io.verglas.materializer.testing;

import io.verglas.store.ObjectStoreEndpoint;
import java.net.URI;
import java.util.List;
import java.util.stream.Collectors;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/** An in-process S3 server (s3proxy, in-memory blobs) on 127.0.0.1 with one bucket. */
public final class TestingS3 implements AutoCloseable {
  public static final String ACCESS_KEY = "verglas-test";
  public static final String SECRET_KEY = "verglas-test-secret";

  private final S3Proxy proxy;
  private final ObjectStoreEndpoint endpoint;

  private TestingS3(S3Proxy proxy, ObjectStoreEndpoint endpoint) {
    this.proxy = proxy;
    this.endpoint = endpoint;
  }

  public static TestingS3 start(String bucket) throws Exception {
    S3Proxy proxy = S3Proxy.builder()
        .blobStore(new TransientNio2BlobStore())
        .endpoint(URI.create("http://127.0.0.1:0"))
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
        .ignoreUnknownHeaders(true)
        .build();
    proxy.start();
    long deadline = System.currentTimeMillis() + 10_000;
    while (!"STARTED".equals(proxy.getState())) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("Cannot start s3proxy: state " + proxy.getState());
      }
      Thread.sleep(10);
    }
    ObjectStoreEndpoint endpoint = new ObjectStoreEndpoint(
        URI.create("http://127.0.0.1:" + proxy.getPort()), "us-east-1", ACCESS_KEY, SECRET_KEY,
        bucket);
    try (S3Client s3 = endpoint.newClient()) {
      s3.createBucket(b -> b.bucket(bucket));
    }
    return new TestingS3(proxy, endpoint);
  }

  public ObjectStoreEndpoint endpoint() {
    return endpoint;
  }

  /** Keys under a prefix. */
  public List<String> list(String prefix) {
    try (S3Client s3 = endpoint.newClient()) {
      return s3.listObjectsV2Paginator(b -> b.bucket(endpoint.bucket()).prefix(prefix))
          .contents().stream().map(S3Object::key).collect(Collectors.toList());
    }
  }

  @Override
  public void close() throws Exception {
    proxy.stop();
  }
}
