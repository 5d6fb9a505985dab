package io.verglas.cache.s3;

/**
 * One request as an operation sees it: the parsed request, who sent it, and (for operations with
 * a body) the verified body and its checksums.
 */
record Exchange(S3Request request, Authentication auth, SpooledBody body, PayloadChecksums checksums) {}
