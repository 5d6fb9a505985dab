package io.verglas.cache.compat;

/** The multipart spec on an S3 origin (s3proxy in process). */
class S3ProxyMultipartTest extends S3MultipartSpec {
  S3ProxyMultipartTest() {
    super(OriginKind.S3PROXY);
  }
}
