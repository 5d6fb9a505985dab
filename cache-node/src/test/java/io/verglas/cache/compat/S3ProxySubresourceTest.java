package io.verglas.cache.compat;

/** The sub-resource spec on an S3 origin (s3proxy in process). */
class S3ProxySubresourceTest extends S3SubresourceSpec {
  S3ProxySubresourceTest() {
    super(OriginKind.S3PROXY);
  }
}
