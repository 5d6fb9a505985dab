package io.verglas.cache.compat;

/** The conditional-write spec on an S3 origin (s3proxy in process). */
class S3ProxyConditionalWriteTest extends S3ConditionalWriteSpec {
  S3ProxyConditionalWriteTest() {
    super(OriginKind.S3PROXY);
  }
}
