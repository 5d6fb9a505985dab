package io.verglas.cache.compat;

import java.net.URI;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;

/** s3proxy in process on 127.0.0.1 with in-memory blobs and SigV4 keys. */
final class TestingS3Proxy implements AutoCloseable {
  static final String ACCESS = "origin-access";
  static final String SECRET = "origin-secret";
  private final S3Proxy proxy;

  TestingS3Proxy() throws Exception {
    proxy = S3Proxy.builder()
        .blobStore(new TransientNio2BlobStore())
        .endpoint(URI.create("http://127.0.0.1:0"))
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS, SECRET)
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
  }

  URI endpoint() {
    return URI.create("http://127.0.0.1:" + proxy.getPort());
  }

  @Override
  public void close() throws Exception {
    proxy.stop();
  }
}
