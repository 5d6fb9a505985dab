package io.verglas.cache.compat;

/** The sub-resource spec on the local directory origin. */
class LocalSubresourceTest extends S3SubresourceSpec {
  LocalSubresourceTest() {
    super(OriginKind.LOCAL);
  }
}
