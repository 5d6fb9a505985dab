package io.verglas.cache.compat;

import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.s3.S3Origin;

/** The compatibility spec with an S3-compatible origin: s3proxy in process, through {@link S3Origin}. */
class S3ProxyOriginCompatibilityTest extends S3CompatibilitySpec {
  private TestingS3Proxy proxy;

  @Override
  protected Origin newOrigin() throws Exception {
    proxy = new TestingS3Proxy();
    return S3Origin.builder().endpoint(proxy.endpoint())
        .credentials(TestingS3Proxy.ACCESS, TestingS3Proxy.SECRET).build();
  }

  @Override
  protected boolean forgetsAbortedUploads() {
    return false;
  }

  @Override
  protected void stopOrigin() throws Exception {
    proxy.close();
  }
}
