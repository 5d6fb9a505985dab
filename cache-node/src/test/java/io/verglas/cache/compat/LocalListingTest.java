package io.verglas.cache.compat;

/** The listing spec on the local directory origin. */
class LocalListingTest extends S3ListingSpec {
  LocalListingTest() {
    super(OriginKind.LOCAL);
  }
}
