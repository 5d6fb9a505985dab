package io.verglas.cache.compat;

/** The listing spec on an S3 origin (s3proxy in process). */
class S3ProxyListingTest extends S3ListingSpec {
  S3ProxyListingTest() {
    super(OriginKind.S3PROXY);
  }
}
