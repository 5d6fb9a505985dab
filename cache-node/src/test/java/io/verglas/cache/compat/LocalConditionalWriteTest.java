package io.verglas.cache.compat;

/** The conditional-write spec on the local directory origin. */
class LocalConditionalWriteTest extends S3ConditionalWriteSpec {
  LocalConditionalWriteTest() {
    super(OriginKind.LOCAL);
  }
}
