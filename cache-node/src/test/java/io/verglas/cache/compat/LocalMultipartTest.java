package io.verglas.cache.compat;

/** The multipart spec on the local directory origin. */
class LocalMultipartTest extends S3MultipartSpec {
  LocalMultipartTest() {
    super(OriginKind.LOCAL);
  }
}
